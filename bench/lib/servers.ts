// Starting the three servers of the HTTP section, each a child process pinned to the server core:
// our service (`cli/bin.js serve`, SQLite, durable, standard variant), the comparison server and the null server.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForServer } from './client.js';
import { CLIENT_ID, DOMAIN, ORIGIN, type Server } from './load.js';
import { startNode, type Child } from './proc.js';

/** The build folder this file runs from (.build or .build-<name>): bench/lib is two levels below it. */
export const BUILD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliOf = (build: string) => join(build, 'src', 'cli', 'bin.js');
const serversOf = (build: string) => join(build, 'bench', 'servers');

const UNLIMITED = {
  perApplication: { burst: 1_000_000, perSecond: 1_000_000 },
  perAddress: { burst: 1_000_000, perSecond: 1_000_000 },
};

export const HEADERS = { 'user-agent': `Vendor AppID: ${CLIENT_ID}`, origin: ORIGIN };

export interface Running extends Server {
  readonly child: Child;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/** A temp folder, removed by `remove()`. */
export function tempDir(label: string, parent = tmpdir()): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(parent, `passkey-bench-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `ours:secret`: the application asks for this relay secret (env:BENCH_RELAY_SECRET), which the load sends. */
export const BENCH_RELAY_SECRET = 'prs_bench-relay-secret-0123456789abcdefghijklmn';

async function started(
  name: string,
  child: Child,
  port: number,
  onClose: () => void = () => undefined,
  headers: Readonly<Record<string, string>> = HEADERS,
): Promise<Running> {
  const target = { host: '127.0.0.1', port, headers };
  try {
    await waitForServer(target, '/api/assertion/options');
  } catch (error) {
    await child.stop();
    onClose();
    throw new Error(`${name} did not start: ${(error as Error).message}\n${child.output()}`);
  }
  return {
    name,
    target,
    child,
    close: async () => {
      await child.stop();
      onClose();
    },
  };
}

/** The SQLite file our service would use in `dir` (the seeding script fills it before the start). */
export const sqliteFile = (dir: string) => join(dir, 'data', 'fido2.db');

/**
 * Our service as an operator runs it: `cli/bin.js serve --config <file>`, SQLite (WAL, synchronous=FULL),
 * ceremonies in memory, one application, standard variant only, ES256 offered first.
 */
export async function startOurs(
  dir: string,
  extraArgs: readonly string[] = [],
  label = 'ours',
  name = 'our service',
  env: Record<string, string> = {},
  build = BUILD,
): Promise<Running> {
  const port = await freePort();
  const config = join(dir, `${label}.json`);
  const secret = env.BENCH_RELAY_SECRET !== undefined;
  writeFileSync(config, JSON.stringify(benchServiceConfig(port, join(dir, 'data'), secret), null, 2));
  const child = startNode(
    [...extraArgs, cliOf(build), 'serve', '--config', config],
    {
      // No admin listener: its default port is fixed and the bench does not use it.
      PASSKEY_ADMIN_ENABLED: 'false',
      PASSKEY_USER_HANDLE_KEY: randomBytes(32).toString('base64'),
      PASSKEY_LOCAL_BLOB_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ...env,
    },
    dir,
  );
  const headers = secret ? { ...HEADERS, authorization: `Bearer ${env.BENCH_RELAY_SECRET}` } : HEADERS;
  return started(name, child, port, undefined, headers);
}

/**
 * The config file of "our service": SQLite in `dataDir`, ceremonies in memory, one application, standard
 * variant, ES256 and RS256.
 */
export function benchServiceConfig(port: number, dataDir: string, relaySecret = false): Record<string, unknown> {
  return {
    listen: { host: '127.0.0.1', port },
    database: `sqlite:${join(dataDir, 'fido2.db')}`,
    challenges: 'memory',
    local: { enabled: false },
    demo: { enabled: false },
    dataDir,
    applications: [
      {
        clientId: CLIENT_ID,
        name: 'Bench',
        domain: DOMAIN,
        origins: [ORIGIN],
        variants: ['standard'],
        algorithms: [-7, -257],
        ...(relaySecret ? { relaySecrets: ['env:BENCH_RELAY_SECRET'] } : {}),
      },
    ],
    // One generator address carries every flow: lift the per-address and per-application rate limits (the
    // defaults would answer 429), and leave out the per-request log line; metrics and audit stay as shipped.
    rateLimits: UNLIMITED,
    requestLog: false,
  };
}

export async function startComparison(dir: string, extraArgs: readonly string[] = []): Promise<Running> {
  const port = await freePort();
  const child = startNode(
    [...extraArgs, join(serversOf(BUILD), 'comparison-server.js'), String(port)],
    { BENCH_RP_ID: DOMAIN, BENCH_ORIGIN: ORIGIN },
    dir,
  );
  return started('SimpleWebAuthn + Fastify', child, port);
}

export async function startNull(dir: string, extraArgs: readonly string[] = []): Promise<Running> {
  const port = await freePort();
  const child = startNode([...extraArgs, join(serversOf(BUILD), 'null-server.js'), String(port)], {}, dir);
  return started('null server', child, port);
}
