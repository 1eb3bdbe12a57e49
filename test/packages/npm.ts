// npm as an integrator runs it, for the tests that install this repository's packages from their tarballs
// (tarballs.test.ts, test/browser/quickstart.test.ts): `npm pack` of the relay and the browser package,
// the service staged with its published manifest (scripts/stage-service.mjs) and packed, and installs
// into throwaway apps. Every npm call is bounded; npm's cache (warm on our machines) serves what it can.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
/** The checkout, and its test build (.build/). */
export const REPO = resolve(here, '..', '..', '..');
export const BUILD = resolve(here, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The longest one npm call may take (a cold install of the service's dependencies stays well under it). */
export const NPM_LIMIT_MS = 180_000;
export const QUIET = ['--no-audit', '--no-fund'];

/** Runs npm in `cwd`; resolves with what it printed (stdout and stderr), rejects with it on failure. */
export async function npmIn(cwd: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(npm, [...args], {
      cwd,
      timeout: NPM_LIMIT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} (in ${cwd}) failed:\n${stderr}\n${stdout}`, { cause: error });
  }
}

export interface Packed {
  readonly tarball: string;
  readonly files: readonly string[];
}

/** `npm pack --json` in `cwd` (its own scripts not run: the build before is the caller's) → tarballs and file lists. */
export async function pack(cwd: string, destination: string, extra: readonly string[] = []): Promise<Packed[]> {
  const { stdout } = await npmIn(cwd, [
    'pack',
    '--ignore-scripts',
    '--json',
    '--pack-destination',
    destination,
    ...extra,
  ]);
  const answer = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return answer.map((entry) => ({
    tarball: join(destination, entry.filename),
    files: entry.files.map((file) => file.path),
  }));
}

/** The relay's and the browser package's tarballs (`npm pack -w`), from their current builds. */
export async function packWorkspaces(root: string): Promise<{ relay: Packed; browser: Packed }> {
  const [relay, browser] = await pack(REPO, root, ['-w', 'packages/relay', '-w', 'packages/browser']);
  return { relay: relay!, browser: browser! };
}

/** The three public tarballs: the relay's and the browser package's, and the service's from its staged manifest. */
export async function packAll(root: string): Promise<{ relay: Packed; browser: Packed; service: Packed }> {
  const stage = join(root, 'service');
  await run(process.execPath, [join(REPO, 'scripts', 'stage-service.mjs'), stage, '--dist', join(BUILD, 'src')], {
    timeout: 60_000,
  });
  const [{ relay, browser }, [service]] = await Promise.all([packWorkspaces(root), pack(stage, root)]);
  return { relay, browser, service: service! };
}

/** An empty app folder with an npm init-like package.json of the given module system (plus `extra` fields). */
export async function makeApp(
  root: string,
  name: string,
  type: 'commonjs' | 'module',
  extra: Readonly<Record<string, unknown>> = {},
): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, type, ...extra }, null, 2)}\n`,
  );
  return dir;
}

type Triple = readonly [number, number, number];
const compare = (a: Triple, b: Triple): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether `version` (x.y.z) satisfies an `engines` range, as npm's check reads the forms packages write
 * (`>=22`, `>= 20.19.0`, `^18.19.0 || >=20.6.0`, `20.x || 22.x`, `*`). A form it does not know throws, so
 * a new one is looked at rather than passed.
 */
export function satisfies(version: string, range: string): boolean {
  const v = version.split('.').map(Number) as unknown as Triple;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter((token) => token !== '')
      .every((token) => {
        const match = /^(>=|<=|>|<|=|\^|~)?v?(\*|x|\d+)(?:\.(\*|x|\d+))?(?:\.(\*|x|\d+))?$/i.exec(token);
        if (!match) throw new Error(`engines range not understood: ${range}`);
        const [, op = '', ...parts] = match;
        const numbers = parts.map((part) => (part === undefined || /^[*x]$/i.test(part) ? undefined : Number(part)));
        const given = numbers.indexOf(undefined);
        const known = given === -1 ? 3 : given;
        if (known === 0) return true; // `*`
        const floor = [numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0] as const;
        const ceiling =
          known === 3
            ? undefined
            : (floor.map((n, i) => (i < known - 1 ? n : i === known - 1 ? n + 1 : 0)) as unknown as Triple);
        const sameLine = (depth: number) => v.slice(0, depth).every((n, i) => n === floor[i]);
        switch (op) {
          case '>=':
            return compare(v, floor) >= 0;
          case '>':
            return ceiling ? compare(v, ceiling) >= 0 : compare(v, floor) > 0;
          case '<':
            return compare(v, floor) < 0;
          case '<=':
            return ceiling ? compare(v, ceiling) < 0 : compare(v, floor) <= 0;
          case '^':
            return compare(v, floor) >= 0 && sameLine(floor[0] === 0 ? 2 : 1);
          case '~':
            return compare(v, floor) >= 0 && sameLine(known >= 2 ? 2 : 1);
          default:
            return ceiling ? compare(v, floor) >= 0 && compare(v, ceiling) < 0 : compare(v, floor) === 0;
        }
      }),
  );
}

/** `engines.node` of every package installed below `modules` (node_modules), by `name@version`. */
export async function installedEngines(modules: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const visit = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.name.startsWith('@')) {
        await visit(path);
        continue;
      }
      const manifest = await readFile(join(path, 'package.json'), 'utf8').then(
        (text) => JSON.parse(text) as { name?: string; version?: string; engines?: { node?: string } },
        () => undefined,
      );
      if (manifest?.engines?.node) found.set(`${manifest.name}@${manifest.version}`, manifest.engines.node);
      await visit(join(path, 'node_modules'));
    }
  };
  await visit(modules);
  return found;
}
