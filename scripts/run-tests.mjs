#!/usr/bin/env node
// Runs every compiled test file (.build/**/*.test.js) with node:test, two files at a time (the machines have
// two cores), under one overall time limit so that CI can never hang. Extra arguments narrow the set:
//   npm test -- webauthn stores      (only files whose path contains one of the words)
// The container image's tests (test/image/) are a command of their own, run once by CI rather than on every
// runtime: `npm run test:image` (= this script with --image) runs them alone, one file at a time (each
// builds the image, from podman's cache after the first), under a longer limit (a cold build bootstraps Debian).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { spawn } from 'node:child_process';

const repo = new URL('../', import.meta.url).pathname;
const root = join(repo, '.build');
const image = process.argv.includes('--image');
const filters = process.argv.slice(2).filter((word) => word !== '--image');
const IMAGE_TESTS = `test${sep}image${sep}`;
const OVERALL_LIMIT_MS = (image ? 60 : 15) * 60 * 1000;

// A compiled test whose .ts source was renamed or deleted stays in .build/ (tsc never removes output):
// running it would test code that no longer exists.
function hasSource(compiled) {
  return existsSync(join(repo, relative(root, compiled)).replace(/\.js$/, '.ts'));
}

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.js') && hasSource(path)) out.push(path);
  }
  return out;
}

const files = collect(root)
  .filter((f) => relative(root, f).startsWith(IMAGE_TESTS) === image)
  .filter((f) => filters.length === 0 || filters.some((w) => relative(root, f).includes(w)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under .build/ (did the pretest compile run?)');
  process.exit(1);
}

// node:test applies --test-timeout to each file as a whole too: an image file's first build may take minutes.
const concurrency = image ? 1 : 2;
const timeoutMs = image ? OVERALL_LIMIT_MS : 240_000;
const child = spawn(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...files],
  {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  },
);
const timer = setTimeout(() => {
  console.error(`test run exceeded ${OVERALL_LIMIT_MS / 60000} minutes; stopping it`);
  child.kill('SIGKILL');
}, OVERALL_LIMIT_MS);
child.on('exit', (code, signal) => {
  clearTimeout(timer);
  process.exit(code ?? (signal ? 1 : 0));
});
