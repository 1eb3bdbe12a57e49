// The measures of issue 37 ("one way to add an endpoint, a feature, an event"), read from the repository:
// the admin listener's handler and route table, the operator features' wiring, inheritance, the SQLite
// writer, files beside folders of their name, and every file path a comment or a doc names. scripts/measures.mjs
// prints them; test/measures.test.ts holds each to its target (or, until it is reached, to its ceiling).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

export interface Measure {
  readonly name: string;
  readonly value: number;
  /** What issue 37 asks for. */
  readonly target: number;
  /** Until the target is reached, the value may not grow past this (only ever lower it). */
  readonly ceiling?: number;
  /** What was found, for the ones that should be none. */
  readonly found?: readonly string[];
}

const SKIP = new Set(['node_modules', 'dist', '.build', 'coverage', 'test-output']);

function* files(root: string, under: string): Generator<string> {
  const start = join(root, under);
  if (!existsSync(start)) return;
  if (statSync(start).isFile()) {
    yield start;
    return;
  }
  for (const name of readdirSync(start)) {
    if (SKIP.has(name) || name.startsWith('.') || name.startsWith('.build')) continue;
    yield* files(root, join(under, name));
  }
}

const text = (file: string) => readFileSync(file, 'utf8');
const sources = (root: string, under = 'src') => [...files(root, under)].filter((f) => /\.ts$/.test(f));

/** The lines of `export function <name>` in `file`, from its signature to its closing brace at column 0. */
function functionLines(file: string, name: string): number {
  const lines = text(file).split('\n');
  const start = lines.findIndex((line) => line.startsWith(`export function ${name}(`));
  if (start < 0) return Number.POSITIVE_INFINITY;
  const end = lines.findIndex((line, i) => i > start && line === '}');
  return end - start + 1;
}

const lineCount = (file: string) => {
  const body = existsSync(file) ? text(file) : '';
  return body.split('\n').length - (body.endsWith('\n') ? 1 : 0);
};

/** `class X extends Y` in src/ where neither is an error class. */
function inheritance(root: string): string[] {
  return sources(root).flatMap((file) =>
    [...text(file).matchAll(/class (\w+) extends (\w+)/g)]
      .filter(([, child, parent]) => !/Error$/.test(parent!) && !/Error$/.test(child!))
      .map(([, child, parent]) => `${relative(root, file)}: ${child} extends ${parent}`),
  );
}

/** A file `x.ts` with a folder `x/` beside it. */
function besideFolders(root: string): string[] {
  return sources(root).filter((file) => {
    const folder = file.replace(/\.ts$/, '');
    return existsSync(folder) && statSync(folder).isDirectory();
  });
}

/** The comments of a source file (line comments, and block-comment lines); a doc's text outside code fences. */
function commentary(file: string): string {
  const body = text(file);
  if (file.endsWith('.md')) return body.replace(/^```[\s\S]*?^```/gm, '');
  return body
    .split('\n')
    .flatMap((line) => {
      const at = line.search(/(^|\s)\/\/|^\s*\/?\*/);
      return at < 0 ? [] : [line.slice(at)];
    })
    .join('\n');
}

const PATH = /(?<![\w./-])((?:src|test|docs|bench|scripts)\/[A-Za-z0-9_./-]*[A-Za-z0-9_])(…|\*|-…)?/g;

/** Whether `path` (as a comment names it: maybe `.js` for a `.ts`, maybe without extension) exists under `base`. */
function exists(base: string, path: string, prefix: boolean): boolean {
  const full = join(base, path);
  if ([full, full.replace(/\.js$/, '.ts'), `${full}.ts`, `${full}.mjs`].some((p) => existsSync(p))) return true;
  if (!prefix || !existsSync(dirname(full))) return false;
  return readdirSync(dirname(full)).some((name) => name.startsWith(basename(full)));
}

/** Every `src/…`, `test/…`, `docs/…`, `bench/…`, `scripts/…` a comment or doc names that does not exist. */
export function stalePaths(root: string): string[] {
  const roots = ['src', 'test', 'docs', 'bench', 'scripts', 'console/src', 'packages', 'README.md', 'BENCHMARKS.md'];
  const named = roots.flatMap((under) => [...files(root, under)]).filter((f) => /\.(ts|mts|mjs|js|md)$/.test(f));
  return named
    .filter((file) => !file.endsWith('.generated.ts'))
    .flatMap((file) => {
      // A package's paths are its own (packages/<name>/src/…), the repository's otherwise.
      const rel = relative(root, file);
      const pkg = /^packages\/[^/]+/.exec(rel)?.[0];
      const bases = pkg === undefined ? [root] : [join(root, pkg), root];
      return [...commentary(file).matchAll(PATH)]
        .filter(([, path, tail]) => !bases.some((base) => exists(base, path!, tail !== undefined)))
        .map(([, path]) => `${rel}: ${path}`);
    });
}

export function measures(root: string): Measure[] {
  const count = (name: string) => sources(root).filter((f) => basename(f) === name).length;
  const grep = (pattern: RegExp) =>
    sources(root).flatMap((f) => [...text(f).matchAll(pattern)].map(() => relative(root, f)));
  const stale = stalePaths(root);
  const inherits = inheritance(root);
  const beside = besideFolders(root).map((f) => relative(root, f));
  const writer = [...files(root, 'src/stores/sqlite')].filter((f) => /(writer|writes|group-commit)/.test(basename(f)));
  return [
    {
      name: 'createAdminHandler lines',
      value: functionLines(join(root, 'src/admin/http.ts'), 'createAdminHandler'),
      target: 60,
    },
    { name: 'r.method comparisons in src/', value: grep(/\br\.method\s*[!=]==/g).length, target: 0 },
    { name: 'hand-written admin OpenAPI paths', value: grep(/'\/admin\/[^']*':\s*\{/g).length, target: 0 },
    {
      name: 'compose/operator-features.ts lines',
      value: lineCount(join(root, 'src/compose/operator-features.ts')),
      target: 100,
    },
    { name: 'files named webhooks.ts in src/', value: count('webhooks.ts'), target: 4 },
    { name: 'files named relay-secrets.ts in src/', value: count('relay-secrets.ts'), target: 4 },
    {
      name: 'webhook event lists written in src/',
      value: grep(/'credential\.created',\s*\n?\s*'credential\.deleted'/g).length,
      target: 0,
    },
    {
      name: 'class inheritance outside error classes in src/',
      value: inherits.length,
      target: 0,
      found: inherits,
    },
    { name: 'SQLite writer files', value: writer.length, target: 3 },
    { name: 'files beside a folder of their name in src/', value: beside.length, target: 0, found: beside },
    {
      name: '`backupEligibility ??` defaults at a use',
      value: grep(/backupEligibility \?\?/g).length,
      target: 0,
    },
    { name: 'stale file names in comments and docs', value: stale.length, target: 0, found: stale },
  ];
}
