// The keep-alive load generator: `flows` concurrent loops, each running whole ceremonies (options, then
// the signed result) for a fixed time, with latencies per endpoint. Each flow signs with credentials of
// its own, so two flows never race on one credential's counter.

import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Authenticator, type Credential, type Fmt, type KeyPair } from './authenticator.js';
import { Latencies, postJson, type Target } from './client.js';

export const DOMAIN = 'bench.example.test';
export const ORIGIN = `https://${DOMAIN}`;
export const CLIENT_ID = 'bench-client';

export interface Server {
  readonly name: string;
  readonly target: Target;
}

export interface FlowUser {
  readonly username: string;
  readonly credential: Credential;
}

export interface LoadResult {
  readonly completed: number;
  readonly failed: number;
  readonly firstError: string | null;
  readonly seconds: number;
  readonly latencies: Latencies;
  /** CPU seconds this generator process used during the run. */
  readonly generatorCpuSeconds: number;
}

const authenticator = new Authenticator(DOMAIN, ORIGIN);

function expectOk(path: string, reply: { status: number; body: Record<string, any> }): Record<string, any> {
  if (reply.status !== 200 || reply.body.status !== 'ok') {
    throw new Error(`${path}: HTTP ${reply.status} ${JSON.stringify(reply.body.errorMessage)}`);
  }
  return reply.body;
}

async function timed(
  latencies: Latencies | null,
  agent: http.Agent,
  server: Server,
  path: string,
  body: unknown,
): Promise<Record<string, any>> {
  const t0 = performance.now();
  const reply = await postJson(agent, server.target, path, body);
  latencies?.add(path, performance.now() - t0);
  return expectOk(path, reply);
}

/** One registration: options, then the attestation signed with `key`. Returns the new credential. */
export async function register(
  agent: http.Agent,
  server: Server,
  username: string,
  key: KeyPair,
  fmt: Fmt,
  latencies: Latencies | null = null,
): Promise<Credential> {
  const options = await timed(latencies, agent, server, '/api/attestation/options', {
    username,
    displayName: username,
    attestation: fmt === 'none' ? 'none' : 'direct',
    authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
  });
  const { json, credential } = authenticator.register(options.challenge as string, options.user.id as string, key, fmt);
  await timed(latencies, agent, server, '/api/attestation/result', json);
  return credential;
}

/** One authentication of `user`: options, then an assertion by the user's credential. */
export async function authenticate(
  agent: http.Agent,
  server: Server,
  user: FlowUser,
  latencies: Latencies | null = null,
): Promise<void> {
  const options = await timed(latencies, agent, server, '/api/assertion/options', {
    username: user.username,
    userVerification: 'preferred',
  });
  await timed(
    latencies,
    agent,
    server,
    '/api/assertion/result',
    authenticator.assert(options.challenge as string, user.credential),
  );
}

export function freshUsername(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}#${DOMAIN}`;
}

/** Runs `flow(index)` in `flows` concurrent loops for `seconds`; counts completions and failures. */
export async function runLoad(
  flows: number,
  seconds: number,
  flow: (index: number, latencies: Latencies) => Promise<void>,
): Promise<LoadResult> {
  const latencies = new Latencies();
  let completed = 0;
  let failed = 0;
  let firstError: string | null = null;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: flows }, async (_, index) => {
      while (performance.now() < end) {
        try {
          await flow(index, latencies);
          completed += 1;
        } catch (error) {
          failed += 1;
          firstError ??= (error as Error).message;
          // A failing server must not turn the loop into a busy spin.
          await new Promise((ok) => setTimeout(ok, 5));
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    completed,
    failed,
    firstError,
    seconds: (performance.now() - t0) / 1000,
    latencies,
    generatorCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}
