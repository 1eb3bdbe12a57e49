#!/usr/bin/env node
// Puts the root package's own commands (package.json "bin") into node_modules/.bin, as npm does for an
// installed package, so that `npx passkey-server …` runs this checkout's build in a clone too (npx looks
// there before the registry). Run by `npm run build` (and so by `npm ci`'s prepare). A node_modules that
// belongs to another checkout (a shared link) is left alone.
import { chmodSync, existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const repo = resolve(new URL('..', import.meta.url).pathname);
const modules = join(repo, 'node_modules');
if (!existsSync(modules) || !realpathSync(modules).startsWith(`${realpathSync(repo)}/`)) process.exit(0);

const { bin = {} } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const binFolder = join(modules, '.bin');
mkdirSync(binFolder, { recursive: true });
for (const [name, target] of Object.entries(bin)) {
  const file = join(repo, target);
  chmodSync(file, 0o755);
  const link = join(binFolder, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binFolder, file), link);
}
