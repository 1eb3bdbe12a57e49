// The cost ledger: what each step of one authentication (assertion/options + assertion/result) and of one
// `none` registration costs in CPU, measured in this process on the service's own modules (src/), so that
// the gap between "our service" over HTTP and the floor (null server + one raw P-256 verify) can be
// attributed step by step. Everything runs on a temp SQLite file (WAL, synchronous=FULL, as the service
// opens it) holding a few thousand credentials of one application, registered through the service's
// verifier; the file is deleted at the end.
//
// CPU is process.cpuUsage(): user + system time of every thread of this process, so the SQLite writer
// thread, the GC threads and the kernel time of the flushes count (not the kernel's own journal and block
// threads, which /proc/<pid>/stat does not count for the servers either). Each step runs after a warm-up,
// in eight rounds that alternate with the other steps, for `seconds` in all (each figure leaves out its
// step's slowest and fastest round: the machine is shared). Writes run 32 at a time, as 32
// concurrent flows issue them, so that the writer's group commit applies as it does under load.
//
// Each step is measured alone, in a loop: caches and branch predictors are warm for it, so the sum of the
// steps is a lower bound. Two checks measure what composing them costs: the ceremony functions end to end
// (assertionOptions + assertionResult, the same stores, no HTTP, no hooks), and the whole app in process
// (buildApp with the service's hooks and timed stores, driven through inject: everything but node:http).
// bench/run.ts sets these against section 3 ("HTTP app and glue" = what remains of our service's CPU).
//
// Composition follows src/main.ts, src/stores/open.ts, src/compose/stores.ts and src/compose/operations.ts; where a
// step is not exported on its own (the answer's envelope and headers in src/http/app.ts, the stored record
// in src/ceremonies/attestation-result.ts), the same few lines are repeated here and say so.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import { composeHooks } from '../../src/runtime/hooks.js';
import { SqliteApplicationStore } from '../../src/applications/sqlite.js';
import { SqliteAuditStore } from '../../src/audit/sqlite.js';
import { seedApplications, StoredApplicationDirectory } from '../../src/applications/directory.js';
import { prepareTrust } from '../../src/applications/config-directory.js';
import { AuditLog } from '../../src/audit/log.js';
import { createAuditHooks } from '../../src/audit/hooks.js';
import type { AuditStore } from '../../src/audit/types.js';
import { assertionOptions } from '../../src/ceremonies/assertion-options.js';
import { assertionResult } from '../../src/ceremonies/assertion-result.js';
import { attestationOptions } from '../../src/ceremonies/attestation-options.js';
import { attestationResult } from '../../src/ceremonies/attestation-result.js';
import type { CeremonyContext } from '../../src/ceremonies/context.js';
import { KeyCache } from '../../src/ceremonies/key-cache.js';
import { CHALLENGE_BYTES } from '../../src/ceremonies/options-call.js';
import { requireStandardOrigin } from '../../src/ceremonies/origins.js';
import type { AssertionResultRequest, AttestationResultRequest } from '../../src/ceremonies/requests.js';
import { clientDataExpectation } from '../../src/ceremonies/session.js';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import { parseUsername } from '../../src/ceremonies/username.js';
import type { ServiceConfig } from '../../src/config.js';
import { Problems } from '../../src/config/checks.js';
import { validateConfig } from '../../src/config/load.js';
import { checkContentType, parseJsonBody, readBody } from '../../src/http/body.js';
import { buildApp, type App } from '../../src/http/app.js';
import { ok } from '../../src/http/envelope.js';
import { parseClientId, singleOrigin } from '../../src/http/headers.js';
import { ROUTES } from '../../src/http/routes.js';
import { compileRequestReaders } from '../../src/http/requests.js';
import { createMetricsHooks } from '../../src/metrics/hooks.js';
import { MetricsRegistry } from '../../src/metrics/registry.js';
import { createStoreMetrics } from '../../src/metrics/stores.js';
import { createRateLimitHooks } from '../../src/ratelimit/limiter.js';
import { MemoryBucketStore } from '../../src/ratelimit/memory.js';
import type { Application, OperationOutcome, ServiceDeps } from '../../src/service.js';
import type { Secrets } from '../../src/config/secrets.js';
import type { Logger } from '../../src/util/log.js';
import { MemoryChallengeStore } from '../../src/stores/memory.js';
import { openSqliteCredentialStore, type SqliteCredentialStore } from '../../src/stores/sqlite.js';
import { openSqliteWriter, resolveWriterMode, type SqliteWriter } from '../../src/stores/sqlite-writer.js';
import type { CeremonyRecord, CredentialRecord } from '../../src/stores/types.js';
import { encodeBase64url } from '../../src/util/base64url.js';
import { systemRuntime, type Runtime } from '../../src/util/runtime.js';
import { parseClientData } from '../../src/webauthn/client-data.js';
import { parseRegistration } from '../../src/webauthn/parse.js';
import { verifyRegistration } from '../../src/webauthn/registration.js';
import type { RegistrationCredentialJSON } from '../../src/webauthn/types.js';
import { Authenticator, keyPool, type Credential, type RegistrationJSON } from './authenticator.js';
import { benchServiceConfig } from './servers.js';
import { CLIENT_ID, DOMAIN, ORIGIN } from './load.js';

/** Stored credentials of the one application (one per user, like the flows of the HTTP section). */
const STORED_USERS = 4096;
/** Concurrent ceremonies: what the HTTP section runs, and so the size of the writer's groups there. */
const FLOWS = 32;
const REMOTE_ADDRESS = '127.0.0.1';
/**
 * Ceremonies and used markers a memory challenge store holds when put + take is measured: about what the
 * HTTP section's server holds after its runs (~2,600 ceremonies a second for ~20 s, kept for the 180 s
 * timeout). The measured ones expire after PUT_TAKE_EXPIRY_MS, so the store stays near that size.
 */
const CHALLENGE_STORE_ENTRIES = 50_000;
const PUT_TAKE_EXPIRY_MS = 50;

// ---------------------------------------------------------------------------------------------------
// Results

export interface LedgerStep {
  /** Stable key (JSON, bench/run.ts). */
  readonly key: string;
  readonly name: string;
  /** How many operations were measured, over how many seconds of wall time and of CPU (all threads). */
  readonly ops: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  /** The kernel part of cpuSeconds. */
  readonly sysSeconds: number;
  /** Garbage-collection pauses of the main thread (part of cpuSeconds), as node:perf_hooks reports them. */
  readonly gcSeconds: number;
  /** CPU µs per operation over the rounds kept (all but the slowest and the fastest). */
  readonly microsPerOp: number;
  /** How many rounds the figures above cover, and the figure over every round. */
  readonly rounds: number;
  readonly microsPerOpAllRounds: number;
}

export interface LedgerResults {
  readonly storedCredentials: number;
  readonly flows: number;
  readonly secondsPerStep: number;
  readonly rounds: number;
  readonly steps: Readonly<Record<string, LedgerStep>>;
  /** The writer mode the service runs here (sqliteWriter "auto" in this process): the sums and checks use it. */
  readonly shipped: 'thread' | 'inline';
  readonly tookSeconds: number;
}

// ---------------------------------------------------------------------------------------------------
// Measuring

type Op = (call: number) => unknown;

interface StepSpec {
  readonly key: string;
  readonly name: string;
  readonly op: Op;
  /** Operations one call of `op` performs (32 for the concurrent writes). */
  readonly opsPerCall?: number;
  /** Calls between two clock reads (sync micro-steps: many; slow async steps: 1). */
  readonly batch?: number;
  /** At most this many calls in all (warm-up included): ceremonies use pre-signed material. */
  readonly maxCalls?: number;
}

interface Tally {
  calls: number;
  ops: number;
  seconds: number;
  cpuSeconds: number;
  sysSeconds: number;
  gcSeconds: number;
}

/** Main-thread GC pauses in ms, as delivered to the observer (entries arrive a turn or two after each GC). */
let gcTotal = 0;
const gc = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcTotal += entry.duration;
});
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
async function gcMillis(): Promise<number> {
  await settle();
  const total = gcTotal;
  gcTotal = 0;
  return total;
}

async function runFor(spec: StepSpec, seconds: number, used: { calls: number }): Promise<Tally> {
  const batch = spec.batch ?? 64;
  await gcMillis();
  const limit = spec.maxCalls ?? Infinity;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let calls = 0;
  // Every slice runs at least one batch (unless the pre-signed material is used up).
  while ((calls === 0 || performance.now() < end) && used.calls + batch <= limit) {
    for (let j = 0; j < batch; j++) {
      const result = spec.op(used.calls);
      if (result instanceof Promise) await result;
      used.calls++;
      calls++;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const gcMs = await gcMillis();
  return {
    calls,
    ops: calls * (spec.opsPerCall ?? 1),
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    sysSeconds: cpu.system / 1e6,
    gcSeconds: gcMs / 1000,
  };
}

/**
 * Warm-up, then ROUNDS rounds in which every step runs in turn, so that noise meets all steps alike. The
 * machine is shared: a burst of someone else's work lands in one slice of one step. So each figure leaves
 * out that step's slowest and fastest round (a trimmed mean; the JSON keeps the plain total as well).
 */
const ROUNDS = 8;
const TRIM = 1;

const add = (a: Tally, b: Tally): Tally => ({
  calls: a.calls + b.calls,
  ops: a.ops + b.ops,
  seconds: a.seconds + b.seconds,
  cpuSeconds: a.cpuSeconds + b.cpuSeconds,
  sysSeconds: a.sysSeconds + b.sysSeconds,
  gcSeconds: a.gcSeconds + b.gcSeconds,
});
const NONE: Tally = { calls: 0, ops: 0, seconds: 0, cpuSeconds: 0, sysSeconds: 0, gcSeconds: 0 };

async function measureAll(specs: readonly StepSpec[], seconds: number): Promise<Record<string, LedgerStep>> {
  const used = specs.map(() => ({ calls: 0 }));
  const rounds = specs.map((): Tally[] => []);
  gc.observe({ entryTypes: ['gc'] });
  const warm = Math.min(0.05, seconds / 4);
  for (const [i, spec] of specs.entries()) await runFor(spec, warm, used[i]!);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, spec] of specs.entries()) rounds[i]!.push(await runFor(spec, seconds / ROUNDS, used[i]!));
  }
  gc.disconnect();
  const out: Record<string, LedgerStep> = {};
  for (const [i, spec] of specs.entries()) {
    // A step that used up its pre-signed material has empty rounds at the end: those are not rounds.
    const ran = rounds[i]!.filter((t) => t.ops > 0).sort((a, b) => a.cpuSeconds / a.ops - b.cpuSeconds / b.ops);
    if (ran.length === 0) throw new Error(`ledger step ${spec.key} ran no operation (pre-signed material used up?)`);
    const kept = ran.length > 2 * TRIM + 1 ? ran.slice(TRIM, ran.length - TRIM) : ran;
    const t = kept.reduce(add, NONE);
    const all = ran.reduce(add, NONE);
    out[spec.key] = {
      key: spec.key,
      name: spec.name,
      ops: t.ops,
      seconds: t.seconds,
      cpuSeconds: t.cpuSeconds,
      sysSeconds: t.sysSeconds,
      gcSeconds: t.gcSeconds,
      microsPerOp: (t.cpuSeconds / t.ops) * 1e6,
      rounds: kept.length,
      microsPerOpAllRounds: (all.cpuSeconds / all.ops) * 1e6,
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The service's pieces, composed as src/main.ts and src/compose/operations.ts compose them

/** The configuration of "our service" in the HTTP section (bench/lib/servers.ts), validated by the service's loader. */
function benchConfig(dir: string): ServiceConfig {
  const problems = new Problems();
  // The service's own bench config (admin off here: the composition has no admin listener to start).
  const raw = { ...benchServiceConfig(0, dir), admin: { enabled: false } };
  const config = validateConfig(raw, problems, (_key, value) => value);
  if (config === undefined || problems.list.length > 0)
    throw new Error(`ledger config refused: ${problems.list.join('; ')}`);
  return config;
}

const quietLog: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface StoredUser {
  readonly username: string;
  readonly userHandle: string;
  readonly credential: Credential;
  /** The stored counter, as this process last wrote it. */
  signCount: number;
}

interface Writers {
  readonly writer: SqliteWriter;
  readonly credentials: SqliteCredentialStore;
  readonly audit: SqliteAuditStore;
}

function contextFor(deps: ServiceDeps, application: Application, keys: KeyCache): CeremonyContext {
  return {
    deps,
    application,
    clientId: CLIENT_ID,
    originHeader: ORIGIN,
    keys,
    noteVariant: () => undefined,
    noteSubject: () => undefined,
  };
}

/** The CredentialRecord attestation/result stores for a verified registration (src/ceremonies/attestation-result.ts). */
function recordOf(
  ceremony: CeremonyRecord,
  json: RegistrationJSON,
  expected: ReturnType<typeof clientDataExpectation>,
  app: Application,
): CredentialRecord {
  const clientData = parseClientData(json.response.clientDataJSON);
  const parsed = parseRegistration(json as unknown as RegistrationCredentialJSON, clientData);
  const verified = verifyRegistration(parsed, {
    ...expected,
    algorithms: app.algorithms,
    trust: app.trust,
    now: new Date(),
  });
  return {
    clientId: CLIENT_ID,
    credentialId: encodeBase64url(verified.credentialId),
    userHandle: ceremony.userHandle,
    username: ceremony.username,
    publicKey: verified.publicKey.cose,
    algorithm: verified.publicKey.alg,
    signCount: verified.signCount,
    transports: json.response.transports,
    aaguid: verified.aaguid,
    attestationFormat: verified.fmt,
    attestationType: verified.attestationType,
    attestationTrusted: verified.attestationTrusted,
    authenticatorName: verified.authenticatorName,
    backupEligible: verified.flags.be,
    backupState: verified.flags.bs,
    userVerified: verified.flags.uv,
    residentKey: null,
    cloneWarning: false,
    createdAt: Date.now(),
    lastUsedAt: null,
  };
}

/** A runtime whose challenges are drawn from a list made in advance (so the answers could be signed before). */
function queuedRuntime(challenges: readonly Buffer[]): Runtime {
  let next = 0;
  return {
    now: systemRuntime.now,
    randomBytes: (size) => {
      // Other draws (buildApp's request-id prefix) come from the service's own source.
      if (size !== CHALLENGE_BYTES) return systemRuntime.randomBytes(size);
      const bytes = challenges[next++];
      if (bytes === undefined) throw new Error('ledger: no pre-drawn challenge left');
      return bytes;
    },
  };
}

// ---------------------------------------------------------------------------------------------------

export interface LedgerOptions {
  /** Measured time per step (all rounds together), after a warm-up. */
  readonly seconds: number;
  /** Only these steps (by key), for a closer look at one of them (e.g. under --cpu-prof); default all. */
  readonly only?: readonly string[];
}

export async function runLedger(options: LedgerOptions): Promise<LedgerResults> {
  const started = performance.now();
  const seconds = options.seconds;
  const dir = mkdtempSync(join(tmpdir(), 'passkey-ledger-'));
  const closers: (() => Promise<unknown> | unknown)[] = [];
  try {
    const config = benchConfig(dir);
    if (config.database.kind !== 'sqlite' || config.ops === undefined)
      throw new Error('ledger: expected SQLite and the operations settings');
    const file = config.database.path;
    const ops = config.ops;
    const runtime = systemRuntime;
    const secrets: Secrets = { userHandleKey: randomBytes(32), localBlobKeys: [{ id: 'k1', key: randomBytes(32) }] };

    // Writers and stores as src/stores/open.ts and src/compose/stores.ts open them, once per writer mode.
    const open = async (mode: 'thread' | 'inline'): Promise<Writers> => {
      const writer = await openSqliteWriter(file, { mode });
      closers.push(() => writer.close());
      const credentials = await openSqliteCredentialStore(file, { writer });
      closers.push(() => credentials.close());
      const audit = new SqliteAuditStore(file, { writer });
      closers.push(() => audit.close());
      return { writer, credentials, audit };
    };
    const thread = await open('thread');
    const inline = await open('inline');
    // What the service resolves sqliteWriter "auto" to in a process like this one (pinned to one core: inline).
    const shipped = resolveWriterMode('auto');
    const main = shipped === 'thread' ? thread : inline;
    const challenges = new MemoryChallengeStore({ clock: runtime.now });

    // Applications, metrics, audit and rate limits as src/compose/operations.ts builds them (request log off, as in the bench).
    const trust = prepareTrust(config.applications, new Date(), 'ledger', { clock: runtime.now });
    const registry = new MetricsRegistry();
    const storeMetrics = createStoreMetrics(registry);
    const applicationStore = new SqliteApplicationStore(file);
    closers.push(() => applicationStore.close());
    const instrumentedApplications = storeMetrics.instrument('applications', applicationStore);
    await seedApplications(instrumentedApplications, config.applications, runtime.now());
    const directory = new StoredApplicationDirectory({
      store: instrumentedApplications,
      buildTrust: trust.buildTrust,
      now: runtime.now,
      cacheMs: ops.applications.cacheMs,
    });
    const application = await directory.find(CLIENT_ID);
    if (!application) throw new Error('ledger: the bench application is not found');
    const auditPending: Promise<void>[] = [];
    /** The service's audit store on the writer, handing its promises to the measurement (the hook itself does not wait). */
    const capturing = (store: AuditStore): AuditStore => ({
      append: (event) => {
        const p = store.append(event);
        auditPending.push(p);
        return p;
      },
      query: (query) => store.query(query),
      ping: () => store.ping(),
      close: async () => undefined,
    });
    const hooksFor = (store: AuditStore) =>
      composeHooks(
        // A registry per composition (the service has one; two would clash on the family names).
        createMetricsHooks(new MetricsRegistry(), { isKnownClient: (id) => directory.isKnown(id) }),
        createAuditHooks(new AuditLog(capturing(store), runtime, quietLog), { options: ops.audit.options }),
        createRateLimitHooks(ops.rateLimits, { store: new MemoryBucketStore(), now: runtime.now, log: quietLog }),
      );
    const hooksThread = hooksFor(thread.audit);
    const hooksInline = hooksFor(inline.audit);
    const hooksMain = shipped === 'thread' ? hooksThread : hooksInline;
    const auditLogs = {
      thread: new AuditLog(thread.audit, runtime, quietLog),
      inline: new AuditLog(inline.audit, runtime, quietLog),
    };

    const deps: ServiceDeps = {
      config,
      applications: directory,
      credentials: main.credentials,
      challenges,
      secrets,
      runtime,
      log: quietLog,
    };
    const keyCache = new KeyCache();
    const ctx = contextFor(deps, application, keyCache);

    // ----- Data: STORED_USERS users with one credential each, registered through the service's verifier -----
    const authenticator = new Authenticator(DOMAIN, ORIGIN);
    const keys = keyPool(8);
    const users: StoredUser[] = [];
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < STORED_USERS; i++) {
      const username = `ledger${i}-${randomBytes(4).toString('hex')}#${DOMAIN}`;
      const userHandle = deriveUserHandle(secrets.userHandleKey, CLIENT_ID, username);
      const challenge = encodeBase64url(randomBytes(CHALLENGE_BYTES));
      const ceremony: CeremonyRecord = {
        challenge,
        clientId: CLIENT_ID,
        variant: 'standard',
        type: 'registration',
        username,
        userHandle,
        userVerification: 'preferred',
        origin: ORIGIN,
        expiresAt: Date.now() + application.timeoutMs,
      };
      const { json, credential } = authenticator.register(challenge, userHandle, keys[i % keys.length]!, 'none');
      batch.push(
        thread.credentials.create(recordOf(ceremony, json, clientDataExpectation(ctx, ceremony), application)),
      );
      users.push({ username, userHandle, credential, signCount: 0 });
      if (batch.length === 512) await Promise.all(batch.splice(0));
    }
    await Promise.all(batch.splice(0));
    // Users 0..FLOWS-1 sign in the ceremony functions end to end, the next FLOWS through the whole app; the
    // counter writes use the others (each user's stored counter has one writer).
    const writeUsers = users.slice(2 * FLOWS);

    // ----- Request bodies as the load generator sends them (bench/lib/load.ts) -----
    const assertionBodies = users.slice(FLOWS, FLOWS + 64).map((u) => {
      const options = Buffer.from(JSON.stringify({ username: u.username, userVerification: 'preferred' }));
      // A copy of the credential: signing here must not move the counters the writes below track.
      const result = Buffer.from(
        JSON.stringify(authenticator.assert(encodeBase64url(randomBytes(32)), { ...u.credential })),
      );
      return { options, result };
    });
    const registrationBodies = Array.from({ length: 64 }, (_, i) => {
      const username = `fresh${i}-${randomBytes(4).toString('hex')}#${DOMAIN}`;
      const options = Buffer.from(
        JSON.stringify({
          username,
          displayName: username,
          attestation: 'none',
          authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
        }),
      );
      const { json } = authenticator.register(
        encodeBase64url(randomBytes(32)),
        encodeBase64url(randomBytes(32)),
        keys[i % keys.length]!,
        'none',
      );
      return { options, result: Buffer.from(JSON.stringify(json)) };
    });
    const read = compileRequestReaders(config.limits);
    // The headers as node:http hands them over (headersDistinct: every occurrence).
    const headers = {
      'user-agent': [`${config.vendor} AppID: ${CLIENT_ID}`],
      'content-type': ['application/json'],
      origin: [ORIGIN],
    } as const;

    // ----- Answers: real ones, from the service's ceremony functions -----
    const assertionAnswer = await assertionOptions(
      ctx,
      read.assertionOptions(JSON.parse(assertionBodies[0]!.options.toString())),
    );
    const attestationAnswer = await attestationOptions(
      ctx,
      read.attestationOptions(JSON.parse(registrationBodies[0]!.options.toString())),
    );
    let requestCount = 0;
    const requestIdPrefix = runtime.randomBytes(6).toString('base64url');
    /** What buildApp's serve does with an operation's fields: envelope, JSON text, headers. */
    const answer = (fields: Record<string, unknown>) => {
      const body = JSON.stringify(ok(fields).body);
      return {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': `${requestIdPrefix}-${(requestCount++).toString(36)}`,
      };
    };
    const outcome = (
      operation: OperationOutcome['operation'],
      user: StoredUser,
      result: boolean,
    ): OperationOutcome => ({
      operation,
      clientId: CLIENT_ID,
      variant: 'standard',
      httpStatus: 200,
      errorName: null,
      durationMs: 2.5,
      requestId: `${requestIdPrefix}-${(requestCount++).toString(36)}`,
      remoteAddress: REMOTE_ADDRESS,
      username: user.username,
      credentialId: result ? user.credential.idText : null,
    });

    // ----- End-to-end ceremonies (no HTTP, no hooks): pre-drawn challenges, pre-signed answers, per flow -----
    // Enough pre-signed rounds for the warm-up and `seconds` at ~60 µs a ceremony (a step that runs out stops early).
    const E2E_CALLS = Math.ceil((seconds + 0.05) * 400);
    const authFlows = users.slice(0, FLOWS).map((user) => {
      const drawn: Buffer[] = [];
      const results: AssertionResultRequest[] = [];
      for (let k = 0; k < E2E_CALLS; k++) {
        const bytes = randomBytes(CHALLENGE_BYTES);
        drawn.push(bytes);
        results.push(
          read.assertionResult(
            JSON.parse(JSON.stringify(authenticator.assert(encodeBase64url(bytes), user.credential))),
          ),
        );
      }
      return { user, ctx: contextFor({ ...deps, runtime: queuedRuntime(drawn) }, application, keyCache), results };
    });
    // A separate Buffer of the same key: derivations made here do not warm the service key's remembered handles.
    const keyCopy = Buffer.from(secrets.userHandleKey);
    const regFlows = Array.from({ length: FLOWS }, (_, f) => {
      const drawn: Buffer[] = [];
      const calls: { username: string; result: AttestationResultRequest }[] = [];
      for (let k = 0; k < E2E_CALLS; k++) {
        const username = `e2e${f}-${k}-${randomBytes(4).toString('hex')}#${DOMAIN}`;
        const bytes = randomBytes(CHALLENGE_BYTES);
        drawn.push(bytes);
        const { json } = authenticator.register(
          encodeBase64url(bytes),
          deriveUserHandle(keyCopy, CLIENT_ID, username),
          keys[(f + k) % keys.length]!,
          'none',
        );
        calls.push({ username, result: read.attestationResult(JSON.parse(JSON.stringify(json))) });
      }
      return { ctx: contextFor({ ...deps, runtime: queuedRuntime(drawn) }, application, keyCache), calls };
    });

    // The whole app in process (buildApp, the service's hooks and timed stores; inject instead of a socket).
    const injectHeaders = {
      'user-agent': `${config.vendor} AppID: ${CLIENT_ID}`,
      'content-type': 'application/json',
      origin: ORIGIN,
    };
    const appDeps = (drawn: readonly Buffer[]): ServiceDeps => ({
      ...deps,
      runtime: queuedRuntime(drawn),
      hooks: hooksMain,
      credentials: storeMetrics.instrument('credentials', main.credentials),
      challenges: storeMetrics.instrument('challenges', challenges),
    });
    // One app per ceremony, as the service has one: the flows of a round start their options calls in flow order
    // and reach the challenge draw in that order (the same awaits before it), so round k, flow f draws
    // challenge k × FLOWS + f, which its answer was signed over. A flow that got another's challenge fails.
    const appAuthDrawn: Buffer[] = [];
    const appAuthFlows = users.slice(FLOWS, 2 * FLOWS).map((user) => ({
      user,
      options: JSON.stringify({ username: user.username, userVerification: 'preferred' }),
      results: [] as string[],
    }));
    const appRegDrawn: Buffer[] = [];
    const appRegFlows = appAuthFlows.map(() => ({ calls: [] as { options: string; result: string }[] }));
    for (let k = 0; k < E2E_CALLS; k++) {
      for (const [f, flow] of appAuthFlows.entries()) {
        const bytes = randomBytes(CHALLENGE_BYTES);
        appAuthDrawn.push(bytes);
        flow.results.push(JSON.stringify(authenticator.assert(encodeBase64url(bytes), flow.user.credential)));
        const username = `app${f}-${k}-${randomBytes(4).toString('hex')}#${DOMAIN}`;
        const regBytes = randomBytes(CHALLENGE_BYTES);
        appRegDrawn.push(regBytes);
        const { json } = authenticator.register(
          encodeBase64url(regBytes),
          deriveUserHandle(keyCopy, CLIENT_ID, username),
          keys[(f + k) % keys.length]!,
          'none',
        );
        appRegFlows[f]!.calls.push({
          options: JSON.stringify({
            username,
            displayName: username,
            attestation: 'none',
            authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
          }),
          result: JSON.stringify(json),
        });
      }
    }
    const authApp = buildApp(appDeps(appAuthDrawn));
    const regApp = buildApp(appDeps(appRegDrawn));
    const post = async (app: App, path: string, body: string) => {
      const reply = await app.inject({
        method: 'POST',
        url: path,
        headers: injectHeaders,
        body,
        remoteAddress: REMOTE_ADDRESS,
      });
      if (reply.status !== 200) throw new Error(`ledger: ${path} answered ${reply.status} ${reply.body}`);
    };

    // ----- The steps -----
    const writesOf = (writers: Writers) => async (call: number) => {
      const done: Promise<boolean>[] = [];
      for (let j = 0; j < FLOWS; j++) {
        const user = writeUsers[(call * FLOWS + j) % writeUsers.length]!;
        done.push(
          writers.credentials.recordUse(CLIENT_ID, user.credential.idText, {
            expectedSignCount: user.signCount,
            signCount: user.signCount + 1,
            backupEligible: false,
            backupState: false,
            userVerified: true,
            cloneWarning: false,
            usedAt: Date.now(),
          }),
        );
        user.signCount += 1;
      }
      if (!(await Promise.all(done)).every(Boolean)) throw new Error('ledger: a counter write changed nothing');
    };
    let created = 0;
    // New users (a registration's usual case): the stored users keep their one credential each.
    const createsOf = (writers: Writers) => async () => {
      const done: Promise<'created' | 'duplicate'>[] = [];
      const random = randomBytes(64 * FLOWS);
      for (let j = 0; j < FLOWS; j++) {
        done.push(
          writers.credentials.create({
            clientId: CLIENT_ID,
            credentialId: encodeBase64url(random.subarray(64 * j, 64 * j + 32)),
            userHandle: encodeBase64url(random.subarray(64 * j + 32, 64 * j + 64)),
            username: `created${created++}#${DOMAIN}`,
            publicKey: keys[j % keys.length]!.cose,
            algorithm: -7,
            signCount: 0,
            transports: ['internal'],
            aaguid: '00000000-0000-0000-0000-000000000000',
            attestationFormat: 'none',
            attestationType: 'none',
            attestationTrusted: false,
            authenticatorName: null,
            backupEligible: false,
            backupState: false,
            userVerified: true,
            residentKey: null,
            cloneWarning: false,
            createdAt: Date.now(),
            lastUsedAt: null,
          }),
        );
      }
      if (!(await Promise.all(done)).every((r) => r === 'created'))
        throw new Error('ledger: a credential was not created');
    };
    const auditsOf = (log: AuditLog) => async (call: number) => {
      const done: Promise<unknown>[] = [];
      for (let j = 0; j < FLOWS; j++) {
        const user = writeUsers[(call * FLOWS + j) % writeUsers.length]!;
        const o = outcome('assertion/result', user, true);
        // The facts createAuditHooks records for a result call.
        done.push(
          log.record({
            actor: `client:${CLIENT_ID}`,
            action: 'ceremony.authentication',
            result: 'ok',
            clientId: CLIENT_ID,
            subject: o.username ?? null,
            target: o.credentialId ?? null,
            errorName: null,
            requestId: o.requestId,
            remoteAddress: o.remoteAddress,
            details: { variant: 'standard', httpStatus: 200 },
          }),
        );
      }
      if ((await Promise.all(done)).some((event) => event === undefined))
        throw new Error('ledger: an audit row was not stored');
    };
    const resultHooksOf = (hooks: ReturnType<typeof composeHooks>) => async (call: number) => {
      for (let j = 0; j < FLOWS; j++)
        hooks.onOutcome!(outcome('assertion/result', writeUsers[(call * FLOWS + j) % writeUsers.length]!, true));
      await Promise.all(auditPending.splice(0));
    };
    const timedNoop = storeMetrics.instrument('ledger', { noop: async () => undefined });
    let fresh = 0;
    const ceremonyRecord = (challenge: string, user: StoredUser, expiresAt: number): CeremonyRecord => ({
      challenge,
      clientId: CLIENT_ID,
      variant: 'standard',
      type: 'authentication',
      username: user.username,
      userHandle: user.userHandle,
      userVerification: 'preferred',
      origin: ORIGIN,
      allowCredentials: [user.credential.idText],
      expiresAt,
    });
    // Without a clock the store frees expired entries by the latest time `take` was given: the step below
    // gives put and take one instant, so a pause of the machine between them cannot expire a ceremony.
    const putTakeStore = new MemoryChallengeStore();
    for (let i = 0; i < CHALLENGE_STORE_ENTRIES; i++) {
      await putTakeStore.put(
        ceremonyRecord(
          encodeBase64url(runtime.randomBytes(CHALLENGE_BYTES)),
          users[i % STORED_USERS]!,
          runtime.now() + application.timeoutMs,
        ),
      );
    }

    const specs: StepSpec[] = [
      // Per request, before the operation (src/http/app.ts dispatch).
      {
        key: 'prelude',
        name: 'request prelude: route, Client ID from User-agent, Content-Type, origin header',
        op: () => {
          ROUTES.get('/api/assertion/result'.split('?', 1)[0]!);
          parseClientId(headers['user-agent'], config.vendor);
          checkContentType(headers['content-type']);
          return singleOrigin(headers.origin);
        },
      },
      {
        key: 'admit',
        name: 'rate-limit admission (hooks.admit, memory buckets, limits lifted as in the bench)',
        op: () => hooksMain.admit!({ clientId: CLIENT_ID, remoteAddress: REMOTE_ADDRESS }),
      },
      {
        key: 'application',
        name: 'application lookup (StoredApplicationDirectory.find, cached)',
        op: () => directory.find(CLIENT_ID),
      },
      {
        key: 'storeTiming',
        name: 'store-call timing (createStoreMetrics proxy + histogram), per store call',
        op: () => timedNoop.noop(),
      },
      // Request bodies.
      {
        key: 'bodiesAuth',
        name: 'request bodies: parseJsonBody + schema check, assertion/options + assertion/result',
        op: (i) => {
          const b = assertionBodies[i % assertionBodies.length]!;
          read.assertionOptions(parseJsonBody(b.options));
          return read.assertionResult(parseJsonBody(b.result));
        },
      },
      {
        key: 'floorAuth',
        name: "the null server's JSON.parse of the same two bodies (in the floor)",
        op: (i) => {
          const b = assertionBodies[i % assertionBodies.length]!;
          JSON.parse(b.options.toString('utf8'));
          return JSON.parse(b.result.toString('utf8'));
        },
      },
      {
        key: 'bodiesReg',
        name: 'request bodies: parseJsonBody + schema check, attestation/options + attestation/result',
        op: (i) => {
          const b = registrationBodies[i % registrationBodies.length]!;
          read.attestationOptions(parseJsonBody(b.options));
          return read.attestationResult(parseJsonBody(b.result));
        },
      },
      {
        key: 'floorReg',
        name: "the null server's JSON.parse of the same two bodies (in the floor)",
        op: (i) => {
          const b = registrationBodies[i % registrationBodies.length]!;
          JSON.parse(b.options.toString('utf8'));
          return JSON.parse(b.result.toString('utf8'));
        },
      },
      {
        key: 'bodyStream',
        name: 'body stream read (readBody over Readable.from, as inject feeds it; over HTTP it reads the IncomingMessage, as the null server does)',
        op: (i) => {
          const body = assertionBodies[i % assertionBodies.length]!.result;
          return readBody(Readable.from([body]), config.limits.bodyBytes, [String(body.length)]);
        },
      },
      // The options call's prelude (src/ceremonies/options-call.ts beginOptionsCall).
      {
        key: 'username',
        name: 'username and origin checks (parseUsername, requireStandardOrigin)',
        op: (i) => {
          parseUsername(users[i % STORED_USERS]!.username, application, config.local.enabled);
          return requireStandardOrigin(ORIGIN, application.origins);
        },
      },
      {
        key: 'userHandleKnown',
        name: 'user handle (deriveUserHandle), returning user',
        op: (i) => deriveUserHandle(secrets.userHandleKey, CLIENT_ID, users[i % STORED_USERS]!.username),
      },
      {
        key: 'userHandleNew',
        name: 'user handle (deriveUserHandle), new user',
        op: () => deriveUserHandle(secrets.userHandleKey, CLIENT_ID, `new${fresh++}#${DOMAIN}`),
      },
      {
        key: 'challenge',
        name: 'challenge draw (32 bytes from runtime.randomBytes → base64url)',
        op: () => encodeBase64url(runtime.randomBytes(CHALLENGE_BYTES)),
      },
      // Stores.
      {
        key: 'challengePutTake',
        name: `challenge store put + take (MemoryChallengeStore holding ~${CHALLENGE_STORE_ENTRIES.toLocaleString('en')} ceremonies)`,
        op: async (i) => {
          const challenge = encodeBase64url(runtime.randomBytes(CHALLENGE_BYTES));
          const at = runtime.now();
          await putTakeStore.put(ceremonyRecord(challenge, users[i % STORED_USERS]!, at + PUT_TAKE_EXPIRY_MS));
          const taken = await putTakeStore.take(CLIENT_ID, challenge, at);
          if (taken.state !== 'taken') throw new Error('ledger: challenge not taken');
        },
      },
      {
        key: 'listByUser',
        name: 'credentials.listByUser, a user with one credential (SQLite)',
        op: (i) => main.credentials.listByUser(CLIENT_ID, users[(i * 7919) % STORED_USERS]!.userHandle),
      },
      {
        key: 'listByUserNew',
        name: 'credentials.listByUser, a new user (none)',
        op: (i) => main.credentials.listByUser(CLIENT_ID, `none${i}`),
      },
      {
        key: 'find',
        name: 'credentials.find (SQLite)',
        op: (i) => main.credentials.find(CLIENT_ID, users[(i * 7919) % STORED_USERS]!.credential.idText),
      },
      {
        key: 'keyCache',
        name: 'imported-key cache hit (KeyCache.get)',
        op: (i) => {
          const u = users[i % 64]!;
          return keyCache.get(CLIENT_ID, u.credential.idText, u.credential.key.cose);
        },
      },
      {
        key: 'recordUseThread',
        name: `credentials.recordUse through the writer, thread (${FLOWS} at a time)`,
        op: writesOf(thread),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'recordUseInline',
        name: `credentials.recordUse through the writer, inline (${FLOWS} at a time)`,
        op: writesOf(inline),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'createThread',
        name: `credentials.create through the writer, thread (${FLOWS} at a time)`,
        op: createsOf(thread),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'createInline',
        name: `credentials.create through the writer, inline (${FLOWS} at a time)`,
        op: createsOf(inline),
        opsPerCall: FLOWS,
        batch: 1,
      },
      // Operations hooks (src/compose/operations.ts composition: metrics, audit, rate limits).
      {
        key: 'hooksOptions',
        name: 'outcome hooks of an options call (metrics; the audit hook records nothing for a successful options call)',
        op: (i) => hooksMain.onOutcome!(outcome('assertion/options', users[i % STORED_USERS]!, false)),
      },
      {
        key: 'hooksResultThread',
        name: `outcome hooks of a result call: metrics + audit row through the writer, thread (${FLOWS} at a time)`,
        op: resultHooksOf(hooksThread),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'hooksResultInline',
        name: `outcome hooks of a result call: metrics + audit row through the writer, inline (${FLOWS} at a time)`,
        op: resultHooksOf(hooksInline),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'auditThread',
        name: `audit row alone (AuditLog.record → SqliteAuditStore → writer, thread; ${FLOWS} at a time)`,
        op: auditsOf(auditLogs.thread),
        opsPerCall: FLOWS,
        batch: 1,
      },
      {
        key: 'auditInline',
        name: `audit row alone (the same, writer inline; ${FLOWS} at a time)`,
        op: auditsOf(auditLogs.inline),
        opsPerCall: FLOWS,
        batch: 1,
      },
      // Answers.
      {
        key: 'answersAuth',
        name: 'answers: envelope + JSON.stringify + headers, assertion/options + assertion/result',
        op: () => {
          answer(assertionAnswer);
          return answer({});
        },
      },
      {
        key: 'answersReg',
        name: 'answers: envelope + JSON.stringify + headers, attestation/options + attestation/result',
        op: () => {
          answer(attestationAnswer);
          return answer({});
        },
      },
      // The ceremony functions end to end, as a check on the sum of their steps.
      {
        key: 'ceremonyAuth',
        name: `assertionOptions + assertionResult end to end (service stores, writer ${shipped}, ${FLOWS} flows; no HTTP, no hooks)`,
        opsPerCall: FLOWS,
        batch: 1,
        maxCalls: E2E_CALLS,
        op: async (call) => {
          await Promise.all(
            authFlows.map(async (flow) => {
              await assertionOptions(flow.ctx, { username: flow.user.username, userVerification: 'preferred' });
              await assertionResult(flow.ctx, flow.results[call]!);
            }),
          );
        },
      },
      {
        key: 'ceremonyReg',
        name: `attestationOptions + attestationResult (none) end to end (service stores, writer ${shipped}, ${FLOWS} flows; no HTTP, no hooks)`,
        opsPerCall: FLOWS,
        batch: 1,
        maxCalls: E2E_CALLS,
        op: async (call) => {
          await Promise.all(
            regFlows.map(async (flow) => {
              const { username, result } = flow.calls[call]!;
              await attestationOptions(flow.ctx, {
                username,
                displayName: username,
                attestation: 'none',
                authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
              });
              await attestationResult(flow.ctx, result);
            }),
          );
        },
      },
      {
        key: 'appAuth',
        name: `the whole app in process: buildApp(…).inject of assertion/options + assertion/result, with the service's hooks and timed stores (${FLOWS} flows)`,
        opsPerCall: FLOWS,
        batch: 1,
        maxCalls: E2E_CALLS,
        op: async (call) => {
          await Promise.all(
            appAuthFlows.map(async (flow) => {
              await post(authApp, '/api/assertion/options', flow.options);
              await post(authApp, '/api/assertion/result', flow.results[call]!);
            }),
          );
          await Promise.all(auditPending.splice(0));
        },
      },
      {
        key: 'appReg',
        name: `the whole app in process: buildApp(…).inject of attestation/options + attestation/result (none), with the service's hooks and timed stores (${FLOWS} flows)`,
        opsPerCall: FLOWS,
        batch: 1,
        maxCalls: E2E_CALLS,
        op: async (call) => {
          await Promise.all(
            appRegFlows.map(async (flow) => {
              await post(regApp, '/api/attestation/options', flow.calls[call]!.options);
              await post(regApp, '/api/attestation/result', flow.calls[call]!.result);
            }),
          );
          await Promise.all(auditPending.splice(0));
        },
      },
    ];
    const steps = await measureAll(
      options.only ? specs.filter((spec) => options.only!.includes(spec.key)) : specs,
      seconds,
    );
    return {
      storedCredentials: STORED_USERS,
      flows: FLOWS,
      secondsPerStep: seconds,
      rounds: ROUNDS,
      steps,
      shipped,
      tookSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// Report: the two tables, their sums, and (with section 3's figures) the budget the targets leave

/** Figures of the other sections that the ledger is read against, all CPU µs per operation. */
export interface LedgerContext {
  /** Section 1–2 (bench/lib/inprocess.ts): the raw verify, and our verification of an authentication and of a `none` registration. */
  readonly verification?: {
    readonly rawVerify: number;
    readonly authentication: number;
    readonly registrationNone: number;
    readonly note?: string;
  };
  /** Section 3: server CPU per authentication and per registration (`none`) of each server. */
  readonly http?: {
    readonly nullAuth: number;
    readonly nullReg: number;
    readonly oursAuth: number;
    readonly oursReg: number;
    readonly comparisonAuth: number;
    readonly comparisonReg: number;
  };
}

export interface LedgerRow {
  readonly step: string;
  readonly microsPerOp: number;
  /** Times per authentication (or registration); 0 for rows outside the sum. */
  readonly times: number;
  readonly microsPerCeremony: number;
  readonly inSum: boolean;
}

export interface LedgerCeremonySummary {
  readonly rows: readonly LedgerRow[];
  /** Sum of the rows in the sum, µs per ceremony. */
  readonly sum: number;
  /** What the target leaves beyond the floor, µs per ceremony (needs section 3). */
  readonly budget: number | null;
  /** Server CPU over HTTP − floor − the sum: what the HTTP app and the glue between the steps cost. */
  readonly glue: number | null;
  /** The ceremony functions end to end (no HTTP, no hooks), and the sum of the rows they consist of. */
  readonly endToEnd: number;
  readonly endToEndSteps: number | null;
  /** The whole app in process (buildApp + inject, hooks, timed stores; no socket), µs per ceremony. */
  readonly app: number;
  /** The app in process − (raw verify) − the sum − the null server's JSON.parse: dispatch, body streams, composition. */
  readonly appGlue: number | null;
  /** glue − appGlue: what node:http costs the service beyond what it costs the null server. */
  readonly httpGlue: number | null;
}

export interface LedgerSummary {
  readonly authentication: LedgerCeremonySummary;
  readonly registration: LedgerCeremonySummary;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const pct = (part: number, whole: number | null) =>
  whole !== null && whole > 0 && Number.isFinite(part) ? `${fmt((100 * part) / whole, 0)} %` : '–';

export function summarizeLedger(ledger: LedgerResults, context: LedgerContext = {}): LedgerSummary {
  const s = ledger.steps;
  const us = (key: string) => s[key]!.microsPerOp;
  const v = context.verification;
  const http = context.http;
  const row = (step: string, microsPerOp: number, times: number): LedgerRow => ({
    step,
    microsPerOp,
    times,
    microsPerCeremony: microsPerOp * times,
    inSum: true,
  });
  const aside = (step: string, microsPerOp: number): LedgerRow => ({
    step,
    microsPerOp,
    times: 0,
    microsPerCeremony: NaN,
    inSum: false,
  });
  const kernel = (key: string) => ` (kernel ${fmt((s[key]!.sysSeconds / s[key]!.ops) * 1e6)} µs)`;
  const shared = (store: number) => [
    row(s.prelude!.name, us('prelude'), 2),
    row(s.admit!.name, us('admit'), 2),
    row(s.application!.name, us('application'), 2),
    row(`${s.storeTiming!.name}: ${store} store calls`, us('storeTiming'), store),
  ];

  // The rows of the writer mode the service runs here, and of the other one (asides).
  const [W, O] = ledger.shipped === 'thread' ? ['Thread', 'Inline'] : ['Inline', 'Thread'];
  const authRows: LedgerRow[] = [
    ...shared(5),
    row(
      `request bodies beyond the floor: parseJsonBody + schema (${fmt(us('bodiesAuth'))} µs) − the null server's JSON.parse (${fmt(us('floorAuth'))} µs)`,
      us('bodiesAuth') - us('floorAuth'),
      1,
    ),
    row(s.username!.name, us('username'), 1),
    row(s.userHandleKnown!.name, us('userHandleKnown'), 1),
    row(s.challenge!.name, us('challenge'), 1),
    row(s.listByUser!.name, us('listByUser'), 1),
    row(s.challengePutTake!.name, us('challengePutTake'), 1),
    row(s.find!.name, us('find'), 1),
    row(s.keyCache!.name, us('keyCache'), 1),
    ...(v
      ? [
          row(
            `our verification beyond the raw verify (section 2: ${fmt(v.authentication)} − ${fmt(v.rawVerify)} µs)`,
            v.authentication - v.rawVerify,
            1,
          ),
        ]
      : []),
    row(`${s[`recordUse${W}`]!.name}${kernel(`recordUse${W}`)}`, us(`recordUse${W}`), 1),
    row(s.hooksOptions!.name, us('hooksOptions'), 1),
    row(`${s[`hooksResult${W}`]!.name}${kernel(`hooksResult${W}`)}`, us(`hooksResult${W}`), 1),
    row(s.answersAuth!.name, us('answersAuth'), 1),
    aside(`${s[`recordUse${O}`]!.name}${kernel(`recordUse${O}`)} (the other writer mode)`, us(`recordUse${O}`)),
    aside(`${s[`hooksResult${O}`]!.name} (the other writer mode)`, us(`hooksResult${O}`)),
    aside(`of the result hooks: ${s.auditThread!.name}${kernel('auditThread')}`, us('auditThread')),
    aside(s.auditInline!.name, us('auditInline')),
    ...(v
      ? [
          aside('reference: raw node:crypto P-256 verify, section 1 (in the floor)', v.rawVerify),
          aside(
            'reference: our verification of an authentication, section 2 (parseClientData + parseAuthentication + verifyAuthentication, cached key)',
            v.authentication,
          ),
        ]
      : []),
    aside(`check: ${s.ceremonyAuth!.name}`, us('ceremonyAuth')),
    aside(`check: ${s.appAuth!.name}`, us('appAuth')),
    aside(`of the app in process, per request: ${s.bodyStream!.name}`, us('bodyStream')),
  ];
  const regRows: LedgerRow[] = [
    ...shared(4),
    row(
      `request bodies beyond the floor: parseJsonBody + schema (${fmt(us('bodiesReg'))} µs) − the null server's JSON.parse (${fmt(us('floorReg'))} µs)`,
      us('bodiesReg') - us('floorReg'),
      1,
    ),
    row(s.username!.name, us('username'), 1),
    row(s.userHandleNew!.name, us('userHandleNew'), 1),
    row(s.challenge!.name, us('challenge'), 1),
    row(s.listByUserNew!.name, us('listByUserNew'), 1),
    row(s.challengePutTake!.name, us('challengePutTake'), 1),
    ...(v
      ? [
          row(
            'our verification of a `none` registration, section 2 (parseClientData + parseRegistration + verifyRegistration; no signature)',
            v.registrationNone,
            1,
          ),
        ]
      : []),
    row(`${s[`create${W}`]!.name}${kernel(`create${W}`)}`, us(`create${W}`), 1),
    row(s.hooksOptions!.name, us('hooksOptions'), 1),
    row(`${s[`hooksResult${W}`]!.name}${kernel(`hooksResult${W}`)}`, us(`hooksResult${W}`), 1),
    row(s.answersReg!.name, us('answersReg'), 1),
    aside(`${s[`create${O}`]!.name}${kernel(`create${O}`)} (the other writer mode)`, us(`create${O}`)),
    aside(`check: ${s.ceremonyReg!.name}`, us('ceremonyReg')),
    aside(`check: ${s.appReg!.name}`, us('appReg')),
  ];
  const sumOf = (rows: readonly LedgerRow[]) =>
    rows.filter((r) => r.inSum).reduce((total, r) => total + r.microsPerCeremony, 0);
  const authSum = sumOf(authRows);
  const regSum = sumOf(regRows);
  // The rows the ceremony functions consist of (options-call prelude, stores, verification, the durable write).
  const authSteps = v
    ? us('username') +
      us('userHandleKnown') +
      us('challenge') +
      us('listByUser') +
      us('challengePutTake') +
      us('find') +
      us('keyCache') +
      v.authentication +
      us(`recordUse${W}`)
    : null;
  const regSteps = v
    ? us('username') +
      us('userHandleNew') +
      us('challenge') +
      us('listByUserNew') +
      us('challengePutTake') +
      v.registrationNone +
      us(`create${W}`)
    : null;
  const authGlue = http && v ? http.oursAuth - http.nullAuth - v.rawVerify - authSum : null;
  const authAppGlue = v ? us('appAuth') - v.rawVerify - authSum - us('floorAuth') : null;
  const regGlue = http ? http.oursReg - http.nullReg - regSum : null;
  const regAppGlue = v ? us('appReg') - regSum - us('floorReg') : null;
  return {
    authentication: {
      rows: authRows,
      sum: authSum,
      budget: http && v ? 0.35 * (http.nullAuth + v.rawVerify) : null,
      glue: authGlue,
      endToEnd: us('ceremonyAuth'),
      endToEndSteps: authSteps,
      app: us('appAuth'),
      appGlue: authAppGlue,
      httpGlue: authGlue !== null && authAppGlue !== null ? authGlue - authAppGlue : null,
    },
    registration: {
      rows: regRows,
      sum: regSum,
      // Registration (none) ≥ 3 × the comparison per server CPU-second: at most its CPU per registration ÷ 3, less the floor.
      budget: http ? http.comparisonReg / 3 - http.nullReg : null,
      glue: regGlue,
      endToEnd: us('ceremonyReg'),
      endToEndSteps: regSteps,
      app: us('appReg'),
      appGlue: regAppGlue,
      httpGlue: regGlue !== null && regAppGlue !== null ? regGlue - regAppGlue : null,
    },
  };
}

/** The ledger section as Markdown lines (bench/run.ts prints them). */
export function ledgerReport(
  ledger: LedgerResults,
  context: LedgerContext = {},
): { lines: string[]; summary: LedgerSummary } {
  const summary = summarizeLedger(ledger, context);
  const { http, verification: v } = context;
  const lines: string[] = [];
  const table = (what: string, c: LedgerCeremonySummary) => {
    lines.push(`| Step | CPU µs per op | per ${what} | µs per ${what} | share of the budget | share of the sum |`);
    lines.push('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of c.rows.filter((row) => row.inSum)) {
      lines.push(
        `| ${r.step} | ${fmt(r.microsPerOp, 2)} | ${r.times}× | ${fmt(r.microsPerCeremony)} | ${pct(r.microsPerCeremony, c.budget)} | ${pct(r.microsPerCeremony, c.sum)} |`,
      );
    }
    lines.push(`| **sum of the steps** | | | **${fmt(c.sum)}** | **${pct(c.sum, c.budget)}** | 100 % |`);
    for (const r of c.rows.filter((row) => !row.inSum))
      lines.push(`| *${r.step}* (not in the sum) | ${fmt(r.microsPerOp, 2)} | | | | |`);
    lines.push('');
  };

  lines.push(
    '## 3b. Cost ledger: the CPU of each step of one authentication and one registration (in process, generator core)',
  );
  lines.push('');
  lines.push(
    `The service's own modules on a temp SQLite file (WAL, synchronous=FULL) holding ${ledger.storedCredentials.toLocaleString('en')} credentials of one ` +
      `application (one per user, registered through the service's verifier); CPU = process.cpuUsage() (every thread: the writer thread, GC, ` +
      `the kernel time of the flushes), ${ledger.secondsPerStep} s per step in ${ledger.rounds} rounds after a warm-up, each figure without its step's slowest and fastest round; writes ${ledger.flows} at a time (group commit ` +
      `as under ${ledger.flows} flows). Sums use the writer the service runs in such a process (sqliteWriter "auto" → ${ledger.shipped}). Ledger took ${fmt(ledger.tookSeconds, 0)} s.` +
      (v?.note ? ` ${v.note}` : ''),
  );
  lines.push('');
  lines.push('### One authentication (assertion/options + assertion/result)');
  lines.push('');
  table('authentication', summary.authentication);
  const a = summary.authentication;
  lines.push(`Sum of the steps per authentication: **${fmt(a.sum)} µs**.`);
  if (http && v && a.budget !== null && a.glue !== null) {
    lines.push(
      `Budget the target leaves (server CPU per authentication ≤ 1.35 × (null server + raw verify)): 0.35 × (${fmt(http.nullAuth, 0)} + ${fmt(v.rawVerify, 0)}) = ` +
        `**${fmt(a.budget, 0)} µs** per authentication beyond the floor; the steps above take ${fmt(a.sum, 0)} µs (${fmt(a.sum / a.budget, 2)}× the budget).`,
    );
    lines.push(
      `Remaining "HTTP app and glue" = our service over HTTP ${fmt(http.oursAuth, 0)} − null server ${fmt(http.nullAuth, 0)} − raw verify ${fmt(v.rawVerify, 0)} − ` +
        `ledger sum ${fmt(a.sum, 0)} = **${fmt(a.glue, 0)} µs** per authentication (${fmt(a.glue / a.budget, 2)}× the budget).`,
    );
    const cmpAllows = http.comparisonAuth / 2.5;
    lines.push(
      `The other target (≥ 2.5 × the comparison's authentications per CPU-second) allows ${fmt(http.comparisonAuth, 0)} / 2.5 = ${fmt(cmpAllows, 0)} µs per ` +
        `authentication in all, i.e. ${fmt(cmpAllows - http.nullAuth - v.rawVerify, 0)} µs beyond the floor.`,
    );
  } else {
    lines.push('Budget and "HTTP app and glue": need section 3 (not run).');
  }
  if (a.endToEndSteps !== null) {
    lines.push(
      `Check: the ceremony functions end to end cost ${fmt(a.endToEnd)} µs per authentication; their steps above (username and origin, user handle, challenge, ` +
        `listByUser, put + take, find, key cache, our whole verification, recordUse) add up to ${fmt(a.endToEndSteps)} µs: running them together costs ` +
        `${fmt(a.endToEnd - a.endToEndSteps)} µs more than measuring each alone.`,
    );
  }
  if (a.appGlue !== null && v) {
    lines.push(
      `The whole app in process (buildApp + inject with the service's hooks; no socket) costs ${fmt(a.app)} µs per authentication: raw verify ${fmt(v.rawVerify)} + ` +
        `ledger sum ${fmt(a.sum)} + the JSON.parse the null server also does ${fmt(ledger.steps.floorAuth!.microsPerOp)} + **${fmt(a.appGlue)} µs** of app glue (dispatch and serve, ` +
        `body streams, promises, composition)` +
        (a.httpGlue !== null && a.budget !== null
          ? `; the other **${fmt(a.httpGlue, 0)} µs** of "HTTP app and glue" lie outside the app: node:http's side for our service beyond the null server's, ` +
            'and what the server process pays that this one does not (its heap and GC after minutes of load, its core).'
          : '.'),
    );
  }
  lines.push('');
  lines.push('### One registration (`none`: attestation/options + attestation/result, a new user)');
  lines.push('');
  table('registration', summary.registration);
  const r = summary.registration;
  lines.push(
    `Sum of the steps per registration: **${fmt(r.sum)} µs** (no signature to verify: all of it is beyond the floor).`,
  );
  if (http && r.budget !== null && r.glue !== null) {
    lines.push(
      `Budget the target leaves (registration ≥ 3 × the comparison per server CPU-second): ${fmt(http.comparisonReg, 0)} / 3 − null server ${fmt(http.nullReg, 0)} = ` +
        `**${fmt(r.budget, 0)} µs** per registration beyond the floor; the steps above take ${fmt(r.sum, 0)} µs (${fmt(r.sum / r.budget, 2)}× the budget).`,
    );
    lines.push(
      `Remaining "HTTP app and glue" = our service over HTTP ${fmt(http.oursReg, 0)} − null server ${fmt(http.nullReg, 0)} − ledger sum ${fmt(r.sum, 0)} = ` +
        `**${fmt(r.glue, 0)} µs** per registration.`,
    );
  } else {
    lines.push('Budget and "HTTP app and glue": need section 3 (not run).');
  }
  if (r.endToEndSteps !== null) {
    lines.push(
      `Check: the ceremony functions end to end cost ${fmt(r.endToEnd)} µs per registration; their steps above (username and origin, user handle, challenge, ` +
        `listByUser, put + take, verification, create) add up to ${fmt(r.endToEndSteps)} µs: running them together costs ${fmt(r.endToEnd - r.endToEndSteps)} µs more.`,
    );
  }
  if (r.appGlue !== null) {
    lines.push(
      `The whole app in process (buildApp + inject with the service's hooks; no socket) costs ${fmt(r.app)} µs per registration: ledger sum ${fmt(r.sum)} + ` +
        `the JSON.parse the null server also does ${fmt(ledger.steps.floorReg!.microsPerOp)} + **${fmt(r.appGlue)} µs** of app glue` +
        (r.httpGlue !== null
          ? `; the other **${fmt(r.httpGlue, 0)} µs** of "HTTP app and glue" lie outside the app (node:http beyond the null server, the server process).`
          : '.'),
    );
  }
  lines.push('');
  return { lines, summary };
}
