#!/usr/bin/env node
// Links this checkout's workspace packages into <build folder>/node_modules, so the compiled service and
// tests import `@passkey-server/relay` and `@passkey-server/browser` from this checkout (found before
// the root node_modules) even when node_modules is shared with another checkout or predates the packages.
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const repo = resolve(new URL('..', import.meta.url).pathname);
const build = resolve(repo, process.argv[2] ?? '.build');
const packages = join(repo, 'packages');

for (const folder of readdirSync(packages)) {
  const { name } = JSON.parse(readFileSync(join(packages, folder, 'package.json'), 'utf8'));
  const link = join(build, 'node_modules', ...name.split('/'));
  mkdirSync(resolve(link, '..'), { recursive: true });
  rmSync(link, { recursive: true, force: true });
  symlinkSync(relative(resolve(link, '..'), join(packages, folder)), link, 'dir');
}
