// The service's npm package, staged for `npm pack` / `npm publish` (docs/deployment.md "From the npm
// package"): the repository root's package.json is the development one (workspaces, build scripts, dev
// dependencies, the demo's packages, the Node.js 20 driver), so it is private; this writes the published
// manifest beside a copy of what it ships.
//
//   node scripts/stage-service.mjs [<folder>] [--dist <compiled src>]
//   cd <folder> && npm publish
//
// <folder> defaults to .publish/passkey-server; --dist defaults to dist/ (`npm run build`). The
// tarball test stages the test build's compiled src this way too, so what it installs is this manifest.
//   node scripts/stage-service.mjs --manifest-only <folder>
// writes the manifest alone (the Containerfile installs its production dependencies before compiling).
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The published manifest: what an installer reads, nothing of the development one besides. */
export function publishedManifest(development) {
  // better-sqlite3 12 only serves Node.js 20 (past its end of life), and only after its install script
  // built it: the published package does not carry it (docs/deployment.md says how to add it there).
  const { 'better-sqlite3-node20': _node20, ...dependencies } = development.dependencies;
  return {
    name: development.name,
    version: development.version,
    description: development.description,
    license: development.license,
    type: development.type,
    engines: development.engines,
    bin: development.bin,
    // Nothing of the service is imported: it is a command and a process. Only the manifest is readable.
    exports: { './package.json': './package.json' },
    files: development.files,
    dependencies,
  };
}

/** Writes the published manifest as `folder`/package.json (creating the folder). */
export async function writeManifest(folder) {
  const development = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'package.json'), `${JSON.stringify(publishedManifest(development), null, 2)}\n`);
}

/** Stages the package in `folder`: the manifest, README, LICENSE, assets, console/dist and `dist`. */
export async function stageService(folder, dist = join(repo, 'dist')) {
  await rm(folder, { recursive: true, force: true });
  await mkdir(join(folder, 'console'), { recursive: true });
  await writeManifest(folder);
  for (const entry of ['README.md', 'LICENSE', 'assets', 'console/dist'])
    await cp(join(repo, entry), join(folder, entry), { recursive: true });
  await cp(dist, join(folder, 'dist'), { recursive: true });
  return folder;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const manifestOnly = args.indexOf('--manifest-only');
  if (manifestOnly !== -1) {
    args.splice(manifestOnly, 1);
    await writeManifest(resolve(args[0] ?? '.'));
    process.exit(0);
  }
  const at = args.indexOf('--dist');
  const dist = at === -1 ? undefined : resolve(args.splice(at, 2)[1]);
  const folder = resolve(args[0] ?? join(repo, '.publish', 'passkey-server'));
  await stageService(folder, dist);
  console.log(`staged ${folder}: cd there and run npm pack or npm publish`);
}
