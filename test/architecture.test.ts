// Keeps the layer arrows of docs/architecture.md true: reads every import in src/ and fails on a forbidden one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(repo, 'src');

interface ImportEdge {
  readonly from: string; // path relative to src/, e.g. "http/app.ts"
  readonly to: string; // resolved path relative to src/, or the package name
  readonly typeOnly: boolean;
  /** A relative import, i.e. a file of src/ rather than a package or node: module. */
  readonly local: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of text.matchAll(pattern)) {
    const target = match[3] ?? match[4]!;
    const to = target.startsWith('.')
      ? relative(src, resolve(dirname(file), target)).replace(/\.js$/, '.ts')
      : target;
    edges.push({ from: relative(src, file), to, typeOnly: Boolean(match[2]), local: target.startsWith('.') });
  }
  return edges;
}

const edges = sourceFiles(src).flatMap(importsOf);
const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const isLocal = (edge: ImportEdge) => edge.local;

function violations(rule: (edge: ImportEdge) => boolean): string[] {
  return edges.filter(rule).map((e) => `${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);
}

describe('architecture: the import arrows of docs/architecture.md', () => {
  it('finds the source tree', () => {
    assert.ok(edges.length > 10, `expected imports under ${src}`);
  });

  it('webauthn/ (the pure core) imports no http/, ceremonies/ or store implementation', () => {
    const bad = violations((e) => inside(e.from, 'webauthn') && isLocal(e) && (
      inside(e.to, 'http') || inside(e.to, 'ceremonies') ||
      (inside(e.to, 'stores') && !(e.to === 'stores/types.ts' && e.typeOnly))));
    assert.deepEqual(bad, []);
  });

  it('webauthn/ does no I/O except reading configured files at start (trust.ts, metadata/)', () => {
    const io = ['node:fs', 'node:fs/promises', 'node:net', 'node:http', 'node:https', 'node:child_process'];
    const bad = violations((e) => inside(e.from, 'webauthn') && io.includes(e.to) &&
      !(e.from === 'webauthn/trust.ts' || inside(e.from, 'webauthn/metadata')));
    assert.deepEqual(bad, []);
  });

  it('http/ never imports webauthn/ or a store implementation (only stores/types)', () => {
    const bad = violations((e) => inside(e.from, 'http') && isLocal(e) && (
      inside(e.to, 'webauthn') || (inside(e.to, 'stores') && e.to !== 'stores/types.ts')));
    assert.deepEqual(bad, []);
  });

  it('ceremonies/ know stores only by interface', () => {
    const bad = violations((e) => inside(e.from, 'ceremonies') && inside(e.to, 'stores') && e.to !== 'stores/types.ts');
    assert.deepEqual(bad, []);
  });

  it('demo/ uses the relay and browser packages by their names (as an integrator does) and the shared utilities', () => {
    const bad = violations((e) => inside(e.from, 'demo') && isLocal(e) && !e.typeOnly &&
      !(inside(e.to, 'demo') || inside(e.to, 'util')));
    assert.deepEqual(bad, []);
  });

  it('src/ reaches the workspace packages only by their names, never by a path into packages/', () => {
    assert.deepEqual(violations((e) => isLocal(e) && e.to.startsWith('../')), []);
  });

  it('authenticators/ (names and icons by AAGUID) imports nothing from the rest of src/', () => {
    const bad = violations((e) => inside(e.from, 'authenticators') && isLocal(e) && !inside(e.to, 'authenticators'));
    assert.deepEqual(bad, []);
  });

  it('errors.ts, config.ts and util/ import nothing from the rest of src/', () => {
    const leaf = (path: string) => path === 'errors.ts' || path === 'config.ts' || inside(path, 'util');
    const bad = violations((e) => leaf(e.from) && isLocal(e) && !leaf(e.to));
    assert.deepEqual(bad, []);
  });
});

describe('architecture: the packages an integrator installs (packages/)', () => {
  const packageEdges = (name: string) => sourceFiles(join(repo, 'packages', name, 'src')).flatMap(importsOf);

  it('the relay imports only its own files and Node.js built-ins (no dependency, nothing of the server)', () => {
    const edges = packageEdges('relay');
    assert.ok(edges.length > 5);
    const bad = edges.filter((e) => (e.local ? !e.to.startsWith('../packages/relay/src/') : !e.to.startsWith('node:')));
    assert.deepEqual(bad.map((e) => `${e.from} → ${e.to}`), []);
  });

  it('the browser helper imports only its own files (it runs in browsers: no node: module either)', () => {
    const edges = packageEdges('browser');
    assert.ok(edges.length > 3);
    const bad = edges.filter((e) => !e.local || !e.to.startsWith('../packages/browser/src/'));
    assert.deepEqual(bad.map((e) => `${e.from} → ${e.to}`), []);
  });
});
