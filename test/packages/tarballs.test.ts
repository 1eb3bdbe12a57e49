// Each package as an integrator gets it: `npm pack` (the service from its published manifest,
// scripts/stage-service.mjs), then `npm install <tarball>` into throwaway apps in a temporary folder
// (CommonJS and ES module apps, a strict `tsc --init` TypeScript app), and used there. Each public tarball
// also installs alone into an empty folder, from the npm registry's packages plus itself: no EBADENGINE on
// the supported runtimes (22, 24, 26), no install script to approve (npm 11's allowScripts), LICENSE,
// README and types for every entry, and a clean `npm publish --dry-run`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMONJS_APP, ES_MODULE_APP, TYPESCRIPT_APP, TYPESCRIPT_COMMONJS_APP } from './integrator-apps.js';
import {
  installedEngines,
  makeApp,
  NPM_LIMIT_MS,
  npmIn,
  packAll,
  QUIET,
  REPO as repo,
  run,
  satisfies,
  type Packed,
} from './npm.js';

const LIMIT_MS = NPM_LIMIT_MS;
/** The supported runtimes, each at its first release: what `engines` of every installed package must admit. */
const SUPPORTED = ['22.0.0', '24.0.0', '26.0.0'];
const runtimeMajor = Number(process.versions.node.split('.')[0]);

interface AppReport {
  readonly httpStatus: number;
  readonly envelope: { status: string; challenge: string };
  readonly seen: { path: string; userAgent: string; origin: string; cookie: string | null; body: unknown }[];
  readonly challengeBytes: number[];
  readonly errors: number;
}

async function runApp(dir: string): Promise<AppReport> {
  const { stdout } = await run(process.execPath, ['index.js'], { cwd: dir, timeout: 20_000 });
  return JSON.parse(stdout) as AppReport;
}

function assertRelayed(report: AppReport): void {
  assert.equal(report.httpStatus, 200);
  assert.equal(report.envelope.status, 'ok');
  assert.deepEqual(report.seen, [
    {
      path: '/api/assertion/options',
      userAgent: 'Vendor AppID: app-client',
      origin: 'https://idp.example.com',
      cookie: null,
      body: { username: 'alice#idp.example.com' },
    },
  ]);
  assert.deepEqual(report.challengeBytes, [1, 2, 3]);
  assert.ok(report.errors > 5);
}

type Manifest = Record<string, unknown> & { name: string; exports?: unknown; dependencies?: Record<string, string> };

/** Every `types` condition of an `exports` map, per entry (`./package.json` excepted). */
function entriesWithoutTypes(exports: unknown): string[] {
  const hasTypes = (target: unknown): boolean =>
    typeof target === 'object' &&
    target !== null &&
    Object.entries(target).every(([key, value]) =>
      key === 'types' ? typeof value === 'string' : typeof value === 'string' ? 'types' in target : hasTypes(value),
    );
  return Object.entries((exports ?? {}) as Record<string, unknown>)
    .filter(([entry, target]) => entry !== './package.json' && !hasTypes(target))
    .map(([entry]) => entry);
}

/** Every `types` file an `exports` map names. */
function typesFiles(exports: unknown): string[] {
  if (typeof exports !== 'object' || exports === null) return [];
  return Object.entries(exports).flatMap(([key, value]) =>
    key === 'types' && typeof value === 'string' ? [value.replace(/^\.\//, '')] : typesFiles(value),
  );
}

describe('packages: installed from their npm pack tarballs', { timeout: 4 * LIMIT_MS }, () => {
  let root: string;
  let relay: Packed;
  let browser: Packed;
  let service: Packed;
  // The installs run side by side (each test awaits its own): npm spends most of its time waiting.
  const installs = new Map<string, Promise<{ dir: string; output: string }>>();

  async function install(
    name: string,
    type: 'commonjs' | 'module',
    flags: readonly string[],
    tarballs: () => string[],
    manifest: Record<string, unknown> = {},
  ): Promise<{ dir: string; output: string }> {
    const dir = await makeApp(root, name, type, manifest);
    const { stdout, stderr } = await npmIn(dir, ['install', ...flags, ...QUIET, ...tarballs()]);
    return { dir, output: `${stderr}\n${stdout}` };
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'passkey-packages-'));
    ({ relay, browser, service } = await packAll(root));
    const both = () => [relay.tarball, browser.tarball];
    installs.set('cjs', install('app-cjs', 'commonjs', ['--offline', '--loglevel=error'], both));
    installs.set('esm', install('app-esm', 'module', ['--offline', '--loglevel=error'], both));
    // Alone, each in an empty folder: the relay and the browser package have no dependencies (offline); the
    // service's come from the registry (or npm's cache). Install scripts are not skipped: none is needed.
    installs.set(
      'relay',
      install('alone-relay', 'commonjs', ['--offline'], () => [relay.tarball]),
    );
    installs.set(
      'browser',
      install('alone-browser', 'module', ['--offline'], () => [browser.tarball]),
    );
    // The service's app says what docs/deployment.md asks: better-sqlite3's script (a rebuild from source of
    // the binaries it ships) stays off.
    installs.set(
      'service',
      install('alone-service', 'commonjs', ['--prefer-offline'], () => [service.tarball], {
        allowScripts: { 'better-sqlite3': false },
      }),
    );
    for (const pending of installs.values()) pending.catch(() => undefined); // each test reports its own failure
  });
  after(async () => {
    await Promise.allSettled(installs.values()); // an install no test awaited (a filtered run) ends first
    await rm(root, { recursive: true, force: true });
  });

  it('the relay tarball holds both builds with their types, the helper its ES module build; no tests', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
    ]) {
      assert.ok(relay.files.includes(file), `relay tarball lacks ${file}`);
    }
    for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts'])
      assert.ok(browser.files.includes(file), `browser tarball lacks ${file}`);
    assert.deepEqual(
      [...relay.files, ...browser.files].filter((file) => file.startsWith('test/')),
      [],
    );
  });

  it('a CommonJS app installs both offline, relays a call and converts its answer', async () => {
    const { dir } = await installs.get('cjs')!;
    await writeFile(join(dir, 'index.js'), COMMONJS_APP);
    assertRelayed(await runApp(dir));
  });

  it('an ES module app installs both offline, relays a call and converts its answer', async () => {
    const { dir } = await installs.get('esm')!;
    await writeFile(join(dir, 'index.js'), ES_MODULE_APP);
    assertRelayed(await runApp(dir));
  });

  it('a strict `tsc --init` TypeScript app compiles against the types (ES module and CommonJS views)', async () => {
    const { dir } = await installs.get('esm')!; // the ES module app: index.js is its JavaScript, index.ts is compiled only
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '--init'], { cwd: dir });
    // Node.js's types, as an integrator installs them (npm install -D @types/node): here the repository's copy.
    await mkdir(join(dir, 'node_modules', '@types'), { recursive: true });
    await symlink(join(repo, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
    await writeFile(join(dir, 'index.ts'), TYPESCRIPT_APP);
    await writeFile(join(dir, 'guide-types.ts'), guideTypes(await readFile(join(repo, 'docs', 'relay.md'), 'utf8')));
    await writeFile(join(dir, 'legacy.cts'), TYPESCRIPT_COMMONJS_APP);
    const compiled = await run(process.execPath, [tsc, '-p', '.', '--noEmit'], { cwd: dir, timeout: LIMIT_MS }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    assert.equal(compiled, '', 'tsc reported errors');
  });

  for (const name of ['relay', 'browser', 'service'] as const) {
    it(`the ${name} tarball installs alone: LICENSE, README, typed entries, no EBADENGINE, no script to approve`, async () => {
      const { dir, output } = await installs.get(name)!;
      const packed = { relay, browser, service }[name];
      const manifest = JSON.parse(
        await readFile(join(dir, 'node_modules', ...packageName(name).split('/'), 'package.json'), 'utf8'),
      ) as Manifest;
      for (const file of ['LICENSE', 'README.md']) assert.ok(packed.files.includes(file), `${name} lacks ${file}`);
      assert.equal(
        await readFile(join(dir, 'node_modules', ...packageName(name).split('/'), 'LICENSE'), 'utf8'),
        await readFile(join(repo, 'LICENSE'), 'utf8'),
      );
      assert.deepEqual(entriesWithoutTypes(manifest.exports), [], `${name}: exports entries without types`);
      for (const file of typesFiles(manifest.exports)) assert.ok(packed.files.includes(file), `${name} lacks ${file}`);
      // npm 11's install-script policy: nothing in the installed tree has a script to approve.
      assert.doesNotMatch(output, /install-scripts|allowScripts/, output);
      if (runtimeMajor >= 22) assert.doesNotMatch(output, /EBADENGINE/, output);
      // Every supported runtime, as npm checks `engines` (the machine's own runtime may be another one).
      const engines = await installedEngines(join(dir, 'node_modules'));
      for (const version of SUPPORTED) {
        const refusing = [...engines].filter(([, range]) => !satisfies(version, range));
        assert.deepEqual(refusing, [], `EBADENGINE on Node.js ${version}`);
      }
    });

    it(`npm publish --dry-run of the ${name} tarball warns of nothing`, async () => {
      const packed = { relay, browser, service }[name];
      // A stand-in token: a dry run checks only that one is configured, and never sends it.
      const { stdout, stderr } = await npmIn(root, [
        'publish',
        '--dry-run',
        '--//registry.npmjs.org/:_authToken=dry-run-only',
        packed.tarball,
      ]);
      assert.doesNotMatch(stderr, /^npm (warn|error)/im, stderr);
      assert.match(stdout, new RegExp(`^\\+ ${packageName(name)}@`, 'm'));
    });
  }

  it('the service tarball is its published manifest: the command and the lists, no demo, no development part', async () => {
    for (const file of ['dist/cli/bin.js', 'README.md', 'LICENSE'])
      assert.ok(service.files.includes(file), `service tarball lacks ${file}`);
    // The demo is a workspace package of the repository (packages/demo), not a dependency of the service.
    assert.deepEqual(
      service.files.filter((file) => file.startsWith('demo/')),
      [],
    );
    assert.ok(service.files.some((file) => file.startsWith('assets/aaguids/')));
    assert.deepEqual(
      service.files.filter((file) => /^(test|packages|src|bench)\//.test(file) || file.endsWith('.test.js')),
      [],
    );
    const { dir } = await installs.get('service')!;
    const manifest = JSON.parse(
      await readFile(join(dir, 'node_modules', 'passkey-server', 'package.json'), 'utf8'),
    ) as Manifest;
    for (const development of ['scripts', 'devDependencies', 'workspaces', 'allowScripts', 'private'])
      assert.equal(manifest[development], undefined, `the published manifest has ${development}`);
    assert.deepEqual(
      Object.keys(manifest.dependencies ?? {}).filter(
        (dep) => dep.startsWith('@passkey-server/') || dep.endsWith('-node20'),
      ),
      [],
    );
    const bin = join(dir, 'node_modules', '.bin', 'passkey-server');
    const { stdout } = await run(bin, ['--help'], { cwd: dir, timeout: 20_000 });
    assert.match(stdout, /^Usage: passkey-server <command>/);
    assert.match(stdout, /check-config/);
    // SQLite without any install script: better-sqlite3 13's prebuilt Node-API binary (22 and later); on
    // Node.js 20 (past its end of life) the command names the package to add.
    const migrated = await run(bin, ['migrate'], { cwd: dir, timeout: 30_000 }).then(
      ({ stdout: out, stderr }) => ({ ok: true, text: `${out}${stderr}` }),
      (error: { stdout?: string; stderr?: string }) => ({
        ok: false,
        text: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    if (runtimeMajor >= 22) assert.ok(migrated.ok, migrated.text);
    else assert.match(migrated.text, /npm install better-sqlite3-node20@npm:better-sqlite3@12/);
  });
});

/** A TypeScript file importing every type the guide's "TypeScript" paragraph names, from the package it names. */
function guideTypes(markdown: string): string {
  const start = markdown.indexOf('**TypeScript.**');
  const paragraph = markdown.slice(start, markdown.indexOf('\n\n', start));
  const names = (part: string) => [...part.matchAll(/`([A-Z]\w+)`/g)].map((match) => match[1]!);
  const relayAt = paragraph.indexOf('`@passkey-server/relay` exports');
  const browserAt = paragraph.indexOf('`@passkey-server/browser` exports');
  const relayTypes = names(paragraph.slice(relayAt, browserAt));
  const browserTypes = names(paragraph.slice(browserAt));
  assert.ok(relayAt > 0 && browserAt > relayAt && relayTypes.length > 10 && browserTypes.length > 10, paragraph);
  return [
    `import type { ${relayTypes.join(', ')} } from '@passkey-server/relay';`,
    `import type { ${browserTypes.join(', ')} } from '@passkey-server/browser';`,
    `export type Named = [${[...relayTypes, ...browserTypes].join(', ')}];`,
    '',
  ].join('\n');
}

function packageName(name: 'relay' | 'browser' | 'service'): string {
  return name === 'service' ? 'passkey-server' : `@passkey-server/${name}`;
}
