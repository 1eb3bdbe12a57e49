// Keeps the layer arrows of docs/architecture.md true: reads every import in src/ and fails on a forbidden one,
// on a folder (or loose file) of src/ without a rule, and on an import cycle between files or between folders.
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
  // `import … from 'x'`, `export … from 'x'`, `import('x')` and the side-effect `import 'x'`.
  const pattern =
    /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(pattern)) {
    const target = match[3] ?? match[4] ?? match[5]!;
    const to = target.startsWith('.') ? relative(src, resolve(dirname(file), target)).replace(/\.js$/, '.ts') : target;
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

/** The part of src/ a path belongs to: its top folder ("http/") or, for a loose file, the file ("service.ts"). */
const part = (path: string) => (path.includes('/') ? `${path.split('/')[0]}/` : path);

/**
 * What each part of src/ may import from the other parts (docs/architecture.md, "Layers"). `types` lists
 * what it may name in type-only imports besides. Every folder and loose file of src/ must appear here.
 */
const RULES: Record<string, { readonly imports: readonly string[]; readonly types?: readonly string[] }> = {
  'errors/': { imports: [] },
  'service-config.ts': { imports: ['schemas/'] },
  'util/': { imports: [] },
  'authenticators/': { imports: [] },
  'schemas/': { imports: [] },
  'webauthn/': { imports: ['errors/', 'util/'], types: ['service-config.ts'] },
  // The stores' interfaces of the audit log, the rate limits and the webhooks are those parts' own (types.ts).
  'stores/': {
    imports: ['errors/', 'util/'],
    types: ['service-config.ts', 'webauthn/', 'schemas/', 'audit/', 'ratelimit/', 'webhooks/'],
  },
  'service.ts': { imports: [] },
  'webhooks/': { imports: ['errors/', 'util/'], types: ['service-config.ts', 'schemas/'] },
  'ceremonies/': {
    imports: ['errors/', 'util/', 'webauthn/', 'service-config.ts', 'authenticators/', 'webhooks/'],
    types: ['service.ts', 'stores/', 'schemas/'],
  },
  'http/': { imports: ['ceremonies/', 'errors/', 'util/', 'service-config.ts', 'schemas/'], types: ['service.ts'] },
  'audit/': { imports: ['errors/', 'util/'], types: ['service.ts', 'service-config.ts', 'schemas/'] },
  'metrics/': { imports: ['errors/', 'util/'], types: ['service.ts', 'service-config.ts', 'schemas/'] },
  'ratelimit/': { imports: ['errors/', 'util/'], types: ['service.ts', 'service-config.ts'] },
  'runtime/': { imports: ['errors/', 'util/'], types: ['service.ts', 'service-config.ts'] },
  'config/': { imports: ['service-config.ts', 'errors/', 'schemas/', 'util/', 'webauthn/'] },
  'secrets/': { imports: ['service-config.ts', 'config/', 'schemas/', 'util/'] },
  'applications/': {
    imports: ['service-config.ts', 'config/', 'errors/', 'stores/', 'util/', 'webauthn/', 'webhooks/'],
    types: ['ceremonies/', 'service.ts', 'schemas/'],
  },
  // Moving passkeys in and out (issue 34): readers and writers of each format, the import's checks.
  'transfer/': {
    imports: ['errors/', 'util/', 'webauthn/', 'schemas/', 'webhooks/'],
    types: ['service-config.ts', 'service.ts', 'stores/', 'audit/'],
  },
  'admin/': {
    imports: [
      'applications/',
      'audit/',
      'authenticators/',
      'ceremonies/',
      'service-config.ts',
      'config/',
      'errors/',
      'http/',
      'metrics/',
      'schemas/',
      'transfer/',
      'util/',
      'webhooks/',
    ],
    types: ['runtime/', 'stores/', 'service.ts'],
  },
  'compose/': {
    imports: [
      'admin/',
      'applications/',
      'audit/',
      'service-config.ts',
      'config/',
      'errors/',
      'http/',
      'metrics/',
      'ratelimit/',
      'runtime/',
      'secrets/',
      'stores/',
      'transfer/',
      'util/',
      'webauthn/',
      'webhooks/',
      'service.ts',
    ],
    types: ['ceremonies/'],
  },
  'main.ts': { imports: ['compose/'], types: ['applications/', 'service-config.ts', 'util/'] },
  'cli/': {
    imports: [
      'admin/',
      'compose/',
      'service-config.ts',
      'config/',
      'errors/',
      'main.ts',
      'secrets/',
      'util/',
      'webauthn/',
    ],
    types: ['stores/'],
  },
};

/** 300 lines: a file a reader takes in at once (the house rule, for src/, packages/*\/src and console/src). */
const MAX_LINES = 300;
/**
 * Files over MAX_LINES today, each with the ceiling it may not pass until it is split (by what its parts do).
 * Only ever shrink this list.
 */
const OVER_TODAY: Record<string, number> = {};
/**
 * A longer file that holds one concept says why on its first line (`// Long: <one concept, and why it stays
 * whole>`), as fastify's lib/reply.js is one long file: 300 lines stay an alarm, not a rule.
 */
const LONG_REASON = /^\/\/ Long: \S.{10,}/;

const lineCount = (file: string) => {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
};

/** The source folders the line rule covers, relative to the repository. */
const sourceRoots = (): string[] => [
  'src',
  'console/src',
  ...readdirSync(join(repo, 'packages')).map((name) => `packages/${name}/src`),
];

/** The cycles of a directed graph (one per strongly connected component of more than one node, or a self-loop). */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(key: (path: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges.filter(isLocal)) {
    const from = key(edge.from);
    const to = key(edge.to);
    if (!graph.has(from)) graph.set(from, new Set());
    if (from !== to) graph.get(from)!.add(to);
  }
  return graph;
}
const fileKey = (path: string) => path;

describe('architecture: every part of src/ has a rule, and there is no cycle', () => {
  it('every folder and loose file of src/ has a rule (and every rule a folder or file)', () => {
    const parts = readdirSync(src)
      .map((name) => (statSync(join(src, name)).isDirectory() ? `${name}/` : name))
      .filter((name) => name.endsWith('/') || name.endsWith('.ts'));
    assert.deepEqual(
      parts.filter((name) => !(name in RULES)),
      [],
      'add a rule to RULES and a paragraph to docs/architecture.md',
    );
    assert.deepEqual(
      Object.keys(RULES).filter((name) => !parts.includes(name)),
      [],
      'a rule for a part that no longer exists',
    );
  });

  it('each part imports only what its rule allows', () => {
    const bad = violations((e) => {
      if (!isLocal(e)) return false;
      const from = part(e.from);
      const to = part(e.to);
      if (from === to) return false;
      const rule = RULES[from];
      if (rule === undefined) return true;
      return !(rule.imports.includes(to) || (e.typeOnly && (rule.types ?? []).includes(to)));
    });
    assert.deepEqual(bad, []);
  });

  it('no source file of src/, packages/*/src or console/src is over 300 lines without its reason (none listed over grows)', () => {
    const files = sourceRoots().flatMap((root) => sourceFiles(join(repo, root)));
    assert.ok(files.length > 100);
    const long = files
      .map((file) => ({ file: relative(repo, file), lines: lineCount(file) }))
      .filter(({ file, lines }) => lines > (OVER_TODAY[file] ?? MAX_LINES))
      .filter(({ file }) => !LONG_REASON.test(readFileSync(join(repo, file), 'utf8').split('\n', 1)[0]!))
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(long, [], 'split the file by what its parts do');
    const shrunk = Object.keys(OVER_TODAY).filter(
      (file) => !files.includes(join(repo, file)) || lineCount(join(repo, file)) <= MAX_LINES,
    );
    assert.deepEqual(shrunk, [], 'no longer over 300 lines: take it off OVER_TODAY');
  });

  it('no import cycle between files', () => {
    assert.deepEqual(cycles(graphOf(fileKey)), []);
  });

  it('no import cycle between folders (and loose files)', () => {
    assert.deepEqual(cycles(graphOf(part)), []);
  });

  it('no arrow runs back up, not even a type-only one (a part naming types of one standing above it)', () => {
    // A part's floor: 1 + the highest floor it imports values from (types are erased at run time).
    const values = new Map<string, Set<string>>();
    for (const e of edges.filter((edge) => edge.local && !edge.typeOnly)) {
      const [from, to] = [part(e.from), part(e.to)];
      if (!values.has(from)) values.set(from, new Set());
      if (from !== to) values.get(from)!.add(to);
    }
    const floors = new Map<string, number>();
    const floor = (name: string, depth = 0): number => {
      assert.ok(depth < 100, 'a cycle of value imports');
      if (!floors.has(name))
        floors.set(name, 1 + Math.max(0, ...[...(values.get(name) ?? [])].map((to) => floor(to, depth + 1))));
      return floors.get(name)!;
    };
    const up = new Set(
      edges
        .filter((e) => e.local && part(e.from) !== part(e.to) && floor(part(e.to)) > floor(part(e.from)))
        .map((e) => `${part(e.from)} → ${part(e.to)}`),
    );
    // Floors by value imports. None runs up today: a part names the types of parts below it, or its own (the
    // stores implement the interfaces audit/, ratelimit/ and webhooks/ declare). Keep this list empty.
    const upToday: string[] = [];
    assert.deepEqual([...up].sort(), upToday);
  });
});

describe('architecture: the import arrows of docs/architecture.md', () => {
  it('finds the source tree', () => {
    assert.ok(edges.length > 10, `expected imports under ${src}`);
  });

  it('webauthn/ (the pure core) imports no http/, ceremonies/ or stores/, not even types', () => {
    const bad = violations(
      (e) =>
        inside(e.from, 'webauthn') &&
        isLocal(e) &&
        (inside(e.to, 'http') || inside(e.to, 'ceremonies') || inside(e.to, 'stores')),
    );
    assert.deepEqual(bad, []);
  });

  it('webauthn/ does no I/O except reading configured files at start (trust.ts, metadata/)', () => {
    const io = ['node:fs', 'node:fs/promises', 'node:net', 'node:http', 'node:https', 'node:child_process'];
    const bad = violations(
      (e) =>
        inside(e.from, 'webauthn') &&
        io.includes(e.to) &&
        !(e.from === 'webauthn/trust.ts' || inside(e.from, 'webauthn/metadata')),
    );
    assert.deepEqual(bad, []);
  });

  it('http/ never imports webauthn/ or a store implementation (only stores/types)', () => {
    const bad = violations(
      (e) =>
        inside(e.from, 'http') &&
        isLocal(e) &&
        (inside(e.to, 'webauthn') || (inside(e.to, 'stores') && e.to !== 'stores/types.ts')),
    );
    assert.deepEqual(bad, []);
  });

  it('ceremonies/ know stores only by interface', () => {
    const bad = violations((e) => inside(e.from, 'ceremonies') && inside(e.to, 'stores') && e.to !== 'stores/types.ts');
    assert.deepEqual(bad, []);
  });

  it('src/ reaches the workspace packages only by their names, never by a path into packages/', () => {
    assert.deepEqual(
      violations((e) => isLocal(e) && e.to.startsWith('../')),
      [],
    );
  });

  it('authenticators/ (names and icons by AAGUID) imports nothing from the rest of src/', () => {
    const bad = violations((e) => inside(e.from, 'authenticators') && isLocal(e) && !inside(e.to, 'authenticators'));
    assert.deepEqual(bad, []);
  });

  it('schemas/ imports nothing from the rest of src/; TypeBox is imported by schemas/typebox.ts alone', () => {
    const bad = violations(
      (e) =>
        (inside(e.from, 'schemas') && e.local && !inside(e.to, 'schemas')) ||
        (e.to.startsWith('@sinclair/typebox') && e.from !== 'schemas/typebox.ts'),
    );
    assert.deepEqual(bad, []);
  });

  it('pg is imported for its values by stores/postgres/connection.ts alone, redis by stores/redis/client.ts', () => {
    const bad = violations(
      (e) =>
        (e.to === 'pg' && !e.typeOnly && e.from !== 'stores/postgres/connection.ts') ||
        (e.to.startsWith('redis') && e.from !== 'stores/redis/client.ts'),
    );
    assert.deepEqual(bad, []);
  });

  it('OpenTelemetry is imported by runtime/tracing.ts alone', () => {
    const bad = violations((e) => e.to.startsWith('@opentelemetry/') && e.from !== 'runtime/tracing.ts');
    assert.deepEqual(bad, []);
  });

  it('console/ (the web console, built by Vite) imports only its own files, and src/ none of them', () => {
    const consoleSrc = join(repo, 'console', 'src');
    const outside = sourceFiles(consoleSrc).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^\s*import\s+(?:[^'";]*?from\s+)?['"]([^'"]+)['"]/gm)]
        .map((match) => match[1]!)
        .filter((target) => !target.startsWith('./'))
        .map((target) => `${relative(repo, file)} → ${target}`),
    );
    assert.deepEqual(outside, []);
    assert.deepEqual(
      violations((e) => e.local && e.to.startsWith('../console/')),
      [],
    );
  });

  it('config/ is the only reader of the environment (process.env)', () => {
    const readers = sourceFiles(src)
      .map((file) => relative(src, file))
      .filter((file) => !inside(file, 'config') && /process\.env\b/.test(readFileSync(join(src, file), 'utf8')));
    assert.deepEqual(readers, []);
  });

  it('errors/, service-config.ts and util/ import nothing from the rest of src/ but the leaf schemas/', () => {
    // service-config.ts takes its enumerated values from schemas/; errors/catalogue.ts joins the groups beside it.
    const leaf = (path: string) =>
      path === 'service-config.ts' || ['util', 'schemas', 'errors'].some((f) => inside(path, f));
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
    assert.deepEqual(
      bad.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  it('the demo imports its own files, Node.js built-ins, the relay by its name and its certificate library', () => {
    const edges = packageEdges('demo');
    assert.ok(edges.length > 5);
    const allowed = ['@passkey-server/relay', '@peculiar/', 'reflect-metadata'];
    const bad = edges.filter((e) =>
      e.local
        ? !e.to.startsWith('../packages/demo/src/')
        : !e.to.startsWith('node:') && !allowed.some((name) => e.to.startsWith(name)),
    );
    assert.deepEqual(
      bad.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  it('the browser helper imports only its own files (it runs in browsers: no node: module either)', () => {
    const edges = packageEdges('browser');
    assert.ok(edges.length > 3);
    const bad = edges.filter((e) => !e.local || !e.to.startsWith('../packages/browser/src/'));
    assert.deepEqual(
      bad.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  const packages = readdirSync(join(repo, 'packages')).filter((name) =>
    statSync(join(repo, 'packages', name)).isDirectory(),
  );
  /** Every folder of packages/ has a rule: whether it runs in browsers (then no node: built-in either). */
  const PACKAGE_RULES: Record<string, { readonly browser: boolean }> = {
    relay: { browser: false },
    browser: { browser: true },
    demo: { browser: false },
  };

  it('every folder of packages/ has a rule (and every rule a folder)', () => {
    assert.deepEqual(
      packages.filter((name) => !(name in PACKAGE_RULES)),
      [],
      'add a rule to PACKAGE_RULES and a paragraph to docs/architecture.md',
    );
    assert.deepEqual(
      Object.keys(PACKAGE_RULES).filter((name) => !packages.includes(name)),
      [],
    );
  });

  it('each package imports only its own files, built-ins (not in browsers) and its declared dependencies', () => {
    const bad = packages.flatMap((name) => {
      const manifest = JSON.parse(readFileSync(join(repo, 'packages', name, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const declared = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((key) =>
        Object.keys(manifest[key] ?? {}),
      );
      const browser = PACKAGE_RULES[name]?.browser ?? true;
      return packageEdges(name)
        .filter((e) =>
          e.local
            ? !e.to.startsWith(`../packages/${name}/src/`)
            : !((!browser && e.to.startsWith('node:')) || declared.some((d) => e.to === d || e.to.startsWith(`${d}/`))),
        )
        .map((e) => `packages/${name}: ${e.from} → ${e.to}`);
    });
    assert.deepEqual(bad, []);
  });

  it('no import cycle between the files of a package or of console/src', () => {
    const roots = [...packages.map((name) => join(repo, 'packages', name, 'src')), join(repo, 'console', 'src')];
    const found = roots.flatMap((root) => {
      const graph = new Map<string, Set<string>>();
      for (const e of sourceFiles(root).flatMap(importsOf).filter(isLocal)) {
        if (!graph.has(e.from)) graph.set(e.from, new Set());
        graph.get(e.from)!.add(e.to);
      }
      return cycles(graph);
    });
    assert.deepEqual(found, []);
  });
});
