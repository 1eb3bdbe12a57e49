// Each package as an integrator gets it: `npm pack`, then `npm install <tarball>` into throwaway apps in a
// temporary folder (CommonJS and ES module apps, a strict `tsc --init` TypeScript app), and used there.
// The relay and the browser helper have no dependencies and install offline; the service's own
// dependencies come from npm's cache or registry (its install scripts are skipped: `--help` needs no SQLite).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { COMMONJS_APP, ES_MODULE_APP, TYPESCRIPT_APP, TYPESCRIPT_COMMONJS_APP } from './integrator-apps.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const build = resolve(here, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const LIMIT_MS = 90_000;
const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];

async function npmIn(cwd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(npm, [...args], {
    cwd,
    timeout: LIMIT_MS,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return stdout;
}

/** `npm pack --json` → the tarball's path and its file list. */
async function pack(
  cwd: string,
  destination: string,
  extra: readonly string[] = [],
): Promise<{ tarball: string; files: string[] }[]> {
  const answer = JSON.parse(
    await npmIn(cwd, ['pack', '--ignore-scripts', '--json', '--pack-destination', destination, ...extra]),
  ) as { filename: string; files: { path: string }[] }[];
  return answer.map((entry) => ({
    tarball: join(destination, entry.filename),
    files: entry.files.map((file) => file.path),
  }));
}

async function makeApp(root: string, name: string, type: 'commonjs' | 'module'): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, type }, null, 2)}\n`,
  );
  return dir;
}

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

/** The service as `npm pack` at the root packs it, with this checkout's compiled code as its dist/. */
async function packService(root: string): Promise<{ tarball: string; files: string[] }> {
  const stage = join(root, 'service');
  await mkdir(stage);
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'assets'])
    await cp(join(repo, entry), join(stage, entry), { recursive: true });
  await cp(join(build, 'src'), join(stage, 'dist'), { recursive: true });
  return (await pack(stage, root))[0]!;
}

describe('packages: installed from their npm pack tarballs', { timeout: 3 * LIMIT_MS }, () => {
  let root: string;
  let relay: { tarball: string; files: string[] };
  let browser: { tarball: string; files: string[] };
  let service: { tarball: string; files: string[] };
  // The installs run side by side (each test awaits its own): npm spends most of its time waiting.
  const installs = new Map<string, Promise<string>>();

  async function install(
    name: string,
    type: 'commonjs' | 'module',
    flags: readonly string[],
    tarballs: () => string[],
  ): Promise<string> {
    const dir = await makeApp(root, name, type);
    await npmIn(dir, ['install', ...flags, ...quiet, ...tarballs()]);
    return dir;
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'passkey-packages-'));
    [[relay, browser], service] = await Promise.all([
      pack(repo, root, ['-w', 'packages/relay', '-w', 'packages/browser']) as Promise<[typeof relay, typeof browser]>,
      packService(root),
    ]);
    const both = () => [relay.tarball, browser.tarball];
    installs.set('cjs', install('app-cjs', 'commonjs', ['--offline'], both));
    installs.set('esm', install('app-esm', 'module', ['--offline'], both));
    installs.set(
      'service',
      install('app-service', 'commonjs', ['--prefer-offline', '--ignore-scripts'], () => [...both(), service.tarball]),
    );
    for (const pending of installs.values()) pending.catch(() => undefined); // each test reports its own failure
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('the relay tarball holds both builds with their types, the helper its ES module build; no tests', () => {
    for (const file of [
      'package.json',
      'README.md',
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
    ]) {
      assert.ok(relay.files.includes(file), `relay tarball lacks ${file}`);
    }
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts'])
      assert.ok(browser.files.includes(file), `browser tarball lacks ${file}`);
    assert.deepEqual(
      [...relay.files, ...browser.files].filter((file) => file.startsWith('test/')),
      [],
    );
  });

  it('a CommonJS app installs both offline, relays a call and converts its answer', async () => {
    const dir = await installs.get('cjs')!;
    await writeFile(join(dir, 'index.js'), COMMONJS_APP);
    assertRelayed(await runApp(dir));
  });

  it('an ES module app installs both offline, relays a call and converts its answer', async () => {
    const dir = await installs.get('esm')!;
    await writeFile(join(dir, 'index.js'), ES_MODULE_APP);
    assertRelayed(await runApp(dir));
  });

  it('a strict `tsc --init` TypeScript app compiles against the types (ES module and CommonJS views)', async () => {
    const dir = await installs.get('esm')!; // the ES module app: index.js is its JavaScript, index.ts is compiled only
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '--init'], { cwd: dir });
    // Node.js's types, as an integrator installs them (npm install -D @types/node): here the repository's copy.
    await mkdir(join(dir, 'node_modules', '@types'), { recursive: true });
    await symlink(join(repo, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
    await writeFile(join(dir, 'index.ts'), TYPESCRIPT_APP);
    await writeFile(join(dir, 'legacy.cts'), TYPESCRIPT_COMMONJS_APP);
    const compiled = await run(process.execPath, [tsc, '-p', '.', '--noEmit'], { cwd: dir, timeout: LIMIT_MS }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    assert.equal(compiled, '', 'tsc reported errors');
  });

  it('the service tarball holds the command and the bundled lists, not the demo, and its command runs', async () => {
    for (const file of ['dist/cli.js', 'README.md', 'LICENSE'])
      assert.ok(service.files.includes(file), `service tarball lacks ${file}`);
    // The demo is a workspace package of the repository (packages/demo): the service depends on none of
    // the unpublished @passkey-server packages, so its tarball installs from the npm registry alone.
    assert.deepEqual(
      service.files.filter((file) => file.startsWith('demo/')),
      [],
    );
    const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.deepEqual(
      Object.keys(manifest.dependencies).filter((name) => name.startsWith('@passkey-server/')),
      [],
    );
    assert.ok(service.files.some((file) => file.startsWith('assets/aaguids/')));
    assert.deepEqual(
      service.files.filter((file) => /^(test|packages|src|bench)\//.test(file) || file.endsWith('.test.js')),
      [],
    );
    const dir = await installs.get('service')!;
    const { stdout } = await run(join(dir, 'node_modules', '.bin', 'passkey-server'), ['--help'], {
      cwd: dir,
      timeout: 20_000,
    });
    assert.match(stdout, /^Usage: passkey-server <command>/);
    assert.match(stdout, /check-config/);
  });
});
