// Instructions per operation of our service, counted by valgrind's callgrind: a measure that does not move
// with the machine's load (the wall-clock and CPU figures of pair.ts do), so a change of a few per cent can
// be judged on a busy machine. Each server runs `cli.js serve` under callgrind, pinned to one core like the
// bench's; the generator registers one credential per flow, runs `--warmup` operations (JIT, caches,
// SQLite pages), zeroes the counters, runs exactly `--ops` operations at `--flows` concurrent ceremonies,
// and dumps. Servers run one after the other, `--repeat` times each, alternating.
//
//   npx tsc -p tsconfig.test.json && node .build/bench/count.js --server ours@<build> --server ours
//       [--op auth|reg] [--ops 2000] [--warmup 1500] [--flows 8] [--repeat 1]
//
// <server>: ours | ours:thread | ours:inline, optionally followed by @<build folder> (another build of the
// project, say a worktree of an older commit compiled with `npx tsc -p tsconfig.test.json`).
// Needs valgrind; the count includes every thread of the process (JavaScript, GC, SQLite, the writer).

import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type http from 'node:http';
import { Authenticator, keyPool, type Credential, type KeyPair } from './lib/authenticator.js';
import { makeAgent, postJson, waitForServer, type Target } from './lib/client.js';
import { DOMAIN, ORIGIN, freshUsername, type FlowUser } from './lib/load.js';
import { pinned, SERVER_CORE, pinSelf } from './lib/proc.js';
import { BUILD, HEADERS, benchServiceConfig, freePort, tempDir } from './lib/servers.js';

const { values } = parseArgs({
  options: {
    server: { type: 'string', multiple: true, default: ['ours'] },
    op: { type: 'string', default: 'auth' },
    ops: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '1500' },
    flows: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '1' },
    keep: { type: 'string' },
  },
});
const OPS = Math.max(10, Math.min(1_000_000, Number(values.ops)));
const WARMUP = Math.max(0, Math.min(1_000_000, Number(values.warmup)));
const FLOWS = Math.max(1, Math.min(64, Number(values.flows)));
const REPEAT = Math.max(1, Math.min(20, Number(values.repeat)));
if (values.op !== 'auth' && values.op !== 'reg') throw new Error('--op is auth or reg');
if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('count.js needs valgrind');

// V8 without its helper threads (the same work on the main thread): far steadier counts from run to run.
const FLAGS = ['--single-threaded'];
const keys = keyPool(16);
const authenticator = new Authenticator(DOMAIN, ORIGIN);
// Under callgrind the server runs some 50 times slower, and a collection of its whole heap can take seconds.
const TIMEOUT_MS = 300_000;

async function call(agent: http.Agent, target: Target, path: string, body: unknown): Promise<Record<string, any>> {
  const reply = await postJson(agent, target, path, body, TIMEOUT_MS);
  if (reply.status !== 200 || reply.body.status !== 'ok')
    throw new Error(`${path}: HTTP ${reply.status} ${JSON.stringify(reply.body.errorMessage)}`);
  return reply.body;
}

async function register(agent: http.Agent, target: Target, username: string, key: KeyPair): Promise<Credential> {
  const options = await call(agent, target, '/api/attestation/options', {
    username,
    displayName: username,
    attestation: 'none',
    authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
  });
  const { json, credential } = authenticator.register(
    options.challenge as string,
    options.user.id as string,
    key,
    'none',
  );
  await call(agent, target, '/api/attestation/result', json);
  return credential;
}

async function authenticate(agent: http.Agent, target: Target, user: FlowUser): Promise<void> {
  const options = await call(agent, target, '/api/assertion/options', {
    username: user.username,
    userVerification: 'preferred',
  });
  await call(
    agent,
    target,
    '/api/assertion/result',
    authenticator.assert(options.challenge as string, user.credential),
  );
}

/** Runs `total` operations at FLOWS concurrent ceremonies; throws on the first failure. */
async function run(target: Target, users: readonly FlowUser[], total: number): Promise<void> {
  const agent = makeAgent(FLOWS);
  let left = total;
  let n = 0;
  try {
    await Promise.all(
      Array.from({ length: FLOWS }, async (_, i) => {
        while (left > 0) {
          left -= 1;
          if (values.op === 'auth') await authenticate(agent, target, users[i]!);
          else await register(agent, target, freshUsername(`reg${i}`), keys[n++ % keys.length]!);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

const targetOf = (port: number) => ({ host: '127.0.0.1', port, headers: HEADERS });

function callgrind(pid: number, flag: '-z' | '-d'): void {
  const done = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8', timeout: 120_000 });
  if (done.status !== 0) throw new Error(`callgrind_control ${flag}: ${done.stderr}`);
}

/** Instructions of one server's measured stretch. */
async function count(spec: string): Promise<number> {
  const [first, build = BUILD] = spec.split('@') as [string, string | undefined];
  const [head, ...flags] = first.split('!') as [string, ...string[]];
  if (head !== 'ours' && head !== 'ours:thread' && head !== 'ours:inline') throw new Error(`unknown server ${spec}`);
  const dir = tempDir('count');
  const port = await freePort();
  const config = join(dir.path, 'ours.json');
  writeFileSync(config, JSON.stringify(benchServiceConfig(port, join(dir.path, 'data'))));
  const node = [process.execPath, ...FLAGS, ...flags, join(build, 'src', 'cli.js'), 'serve', '--config', config];
  const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dir.path, 'cg.%p')}`, ...node];
  const argv = pinned ? ['taskset', '-c', String(SERVER_CORE), ...valgrind] : valgrind;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: dir.path,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PASSKEY_ADMIN_ENABLED: 'false',
      PASSKEY_USER_HANDLE_KEY: randomBytes(32).toString('base64'),
      PASSKEY_LOCAL_BLOB_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      ...(head === 'ours' ? {} : { PASSKEY_SQLITE_WRITER: head.slice('ours:'.length) }),
    },
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    const target = targetOf(port);
    try {
      await waitForServer(target, '/api/assertion/options', 600_000);
    } catch (error) {
      throw new Error(`${spec} did not start: ${(error as Error).message}\n${output}`);
    }
    const users: FlowUser[] = [];
    const agent = makeAgent(1);
    try {
      for (let i = 0; i < FLOWS; i++) {
        const username = freshUsername(`flow${i}`);
        users.push({ username, credential: await register(agent, target, username, keys[i % keys.length]!) });
      }
    } finally {
      agent.destroy();
    }
    await run(target, users, WARMUP);
    callgrind(child.pid!, '-z');
    await run(target, users, OPS);
    callgrind(child.pid!, '-d');
    const dumps = readdirSync(dir.path).filter((f) => f.startsWith(`cg.${child.pid}.`));
    const text = readFileSync(join(dir.path, dumps.sort().at(-1)!), 'utf8');
    const summary = /^(?:summary|totals):\s*(\d+)/m.exec(text);
    if (!summary) throw new Error(`no total in the callgrind dump of ${spec}`);
    if (values.keep) writeFileSync(join(values.keep, `callgrind.${values.op}.${child.pid}`), text);
    return Number(summary[1]);
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
    dir.remove();
  }
}

pinSelf();
const servers = values.server!;
const results = new Map<string, number[]>(servers.map((s) => [s, []]));
for (let r = 0; r < REPEAT; r++) {
  for (const spec of r % 2 === 0 ? servers : [...servers].reverse()) {
    const ir = await count(spec);
    results.get(spec)!.push(ir / OPS);
    console.log(
      `${spec}: ${(ir / OPS / 1e3).toFixed(1)} k instructions per ${values.op} (${OPS} ops, ${FLOWS} flows, after ${WARMUP})`,
    );
  }
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const first = mean(results.get(servers[0]!)!);
console.log(`\n# instructions per ${values.op}, mean of ${REPEAT}; ratio to ${servers[0]}`);
for (const spec of servers) {
  const m = mean(results.get(spec)!);
  console.log(`| ${spec} | ${(m / 1e3).toFixed(1)} k | ${(m / first).toFixed(3)} |`);
}
