// Can the timing of an answer tell a registered user from an unknown one (issue #16 item 4)? For assertion
// options, and for an assertion result with a bad signature on the credential id the options offered (a
// real one for a registered user, the stand-in for an unknown one), this takes N timed calls of each kind,
// INTERLEAVED (registered, unknown, then unknown, registered, …) so that a loaded machine slows both
// alike, and compares the two samples with a two-sample Kolmogorov–Smirnov test. A small p-value would
// mean the two can be told apart; the figures belong in docs/performance.md, never in a unit test.
//
//   npx tsc -p tsconfig.test.json && node .build/bench/enumeration.js [--n 5000] [--users 1000] [--max-seconds 600]
//     [--store memory|sqlite] [--only options|result] [--control] [--http] [--floor <ms>]
//
// The service runs with its own timers (systemRuntime, util/precise-timers.ts) and the answer floor as
// shipped (`answerFloorMs`, docs/decisions.md "Options responses"), or `--floor <ms>`: `--floor 0` measures
// the work's own timing, without the floor.
//
// In process: the HTTP app's `inject` (the whole request path: headers, body, schema, ceremony, stores),
// with the test harness's service and memory stores, or the shipped SQLite stores on a file in a temporary
// directory (--store sqlite); no socket, whose noise would only hide a difference. --http serves the same
// app on 127.0.0.1 (port 0) and times each call through the socket as a caller outside would (node:http
// server, fetch client with keep-alive, both in this process). --control registers the "unknown" users
// too: a run where both kinds do the same work, whose D and p are the bench's own floor. Registered and
// unknown names have the same length, so that only registration differs between the two kinds. Each user
// has a cost of its own (per-user medians spread over 2.5 µs in process), so the users are the sample as
// much as the calls: with 50 of each kind the floor itself failed at 15,000 pairs, with 1000 it holds.
// Hence 1000 by default (--users).

import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteChallengeStore, openSqliteCredentialStore } from '../src/stores/sqlite/credentials.js';
import { Flow, Harness, type HarnessOptions, username } from '../test/support/harness.js';
import { SocketHarness } from '../test/support/socket-harness.js';
import { ksTwoSample } from './lib/ks.js';
import { DEFAULT_ANSWER_FLOOR_MS } from '../src/schemas/config.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    users: { type: 'string', default: '1000' },
    'max-seconds': { type: 'string', default: '600' },
    store: { type: 'string', default: 'memory' },
    only: { type: 'string' },
    control: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    floor: { type: 'string', default: String(DEFAULT_ANSWER_FLOOR_MS) },
  },
});
if (values.store !== 'memory' && values.store !== 'sqlite') throw new Error('--store is memory or sqlite');
const N = Math.max(100, Math.min(50_000, Number(values.n)));
const USERS = Math.max(1, Math.min(1000, Number(values.users)));
const FLOOR = Number(values.floor);
if (!Number.isInteger(FLOOR) || FLOOR < 0 || FLOOR > 1000) throw new Error('--floor is a whole number of ms, 0–1000');
const DEADLINE = Date.now() + Math.max(10, Math.min(3600, Number(values['max-seconds']))) * 1000;

const dir = values.store === 'sqlite' ? mkdtempSync(join(tmpdir(), 'enumeration-')) : undefined;
let clock: () => number = Date.now;
// The service's own timers (the harness's default fires every timer at once) and the floor of the run.
const service: HarnessOptions = {
  timers: 'real',
  config: { answerFloorMs: FLOOR },
  ...(dir === undefined
    ? {}
    : {
        credentials: await openSqliteCredentialStore(join(dir, 'service.db')),
        challenges: await openSqliteChallengeStore(join(dir, 'service.db'), { clock: () => clock() }),
      }),
};
const h = values.http === true ? await SocketHarness.start(service) : new Harness(service);
clock = h.clock.now;
// The bench's own floor (--control: both kinds registered) showed differences of its own, 0.2–0.7 µs and
// p down to 1e-40, from how the two kinds were set up rather than from what the service does with them.
// So every choice that could favour one kind is drawn at random for each run: the names (all of one
// length: a name's hash decides where its keys land in a Map or an index), which name is of which kind
// (the flows are made, and their objects allocated, in one order, then dealt at random) and the order of
// registration (registering one kind after the other, or each pair side by side, made whichever kind came
// later measurably slower or faster).
const shuffle = <T>(xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
};
const names = new Set<string>();
while (names.size < 2 * USERS) names.add(randomBytes(6).toString('hex'));
const flows = shuffle([...names].map((name) => new Flow(h, username(name))));
const known = flows.slice(0, USERS);
const unknown = flows.slice(USERS);
const donor = new Flow(h, username('donor'));
// Registered credentials shaped like the stand-in (a 20-byte id, transports hybrid and internal), so that
// both answers have the same length and only the work behind them differs. (An id of another length is
// visible in the answer itself, whatever it costs.)
const toRegister = [donor, ...shuffle([...known, ...(values.control === true ? unknown : [])])];
for (const flow of toRegister) {
  const { res } = await flow.register({ credentialId: randomBytes(20), transports: ['hybrid', 'internal'] });
  if (res.status !== 200) throw new Error(`registration failed: ${res.body}`);
}
const donorId = donor.authenticator.credentials[0]!.id.toString('base64url');

async function timed<T>(call: () => Promise<T>): Promise<[number, T]> {
  const t0 = process.hrtime.bigint();
  const out = await call();
  return [Number(process.hrtime.bigint() - t0) / 1000, out];
}

/** µs of one assertion options call. */
async function optionsCall(flow: Flow): Promise<number> {
  const [us] = await timed(() => flow.assertionOptions());
  return us;
}

/**
 * µs of one assertion result: a well-formed assertion for this user's options, signed by the donor's key
 * (so the signature is valid DER but not this credential's), on the first credential id the options offer.
 */
async function resultCall(flow: Flow): Promise<number> {
  const options = await flow.assertionOptions();
  const offered = options.allowCredentials[0].id as string;
  const made = donor.authenticator.authenticate(options, { credentialId: donorId, userHandle: null });
  const body = { ...made, id: offered, rawId: offered };
  const [us, res] = await timed(() => h.post('/api/assertion/result', body));
  const name = res.json().errorMessage?.[0];
  if (name !== 'ASSERTION_SIGNATURE_VERIFICATION_FAIL')
    throw new Error(`expected ASSERTION_SIGNATURE_VERIFICATION_FAIL, got ${res.body}`);
  return us;
}

async function compare(label: string, call: (flow: Flow) => Promise<number>) {
  // Warm-up: the JIT, the remembered stand-ins and key caches, for both kinds alike.
  for (let i = 0; i < Math.min(500, N); i++) {
    await call(known[i % USERS]!);
    await call(unknown[i % USERS]!);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < N && Date.now() < DEADLINE; i++) {
    const k = known[i % USERS]!;
    const u = unknown[i % USERS]!;
    if (i % 2 === 0) {
      a.push(await call(k));
      b.push(await call(u));
    } else {
      b.push(await call(u));
      a.push(await call(k));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const { d, p } = ksTwoSample(a, b);
  console.log(
    `${label.padEnd(34)} n=${a.length}+${b.length}  median registered ${median(a).toFixed(1)} µs, unknown ${median(b).toFixed(1)} µs  KS D=${d.toFixed(4)} p=${p.toPrecision(3)}`,
  );
}

console.log(
  `enumeration: ${USERS} registered and ${USERS} unknown users, ${values.store} stores, ${values.http === true ? 'over HTTP (127.0.0.1)' : 'in process (inject)'}, answer floor ${FLOOR === 0 ? 'off' : `${FLOOR} ms`}, N=${N} interleaved calls of each kind per row`,
);
if (values.only !== 'result') await compare('assertion options', optionsCall);
if (values.only !== 'options') await compare('assertion result, bad signature', resultCall);
if (h instanceof SocketHarness) await h.close();
if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
