// A service built for tests: memory stores, a fake clock, deterministic randomness, one application with
// both variants, and helpers that drive the four operations through `inject` with the soft authenticator.

import { createHash } from 'node:crypto';
import type { ApplicationConfig, ServiceConfig } from '../../src/service-config.js';
import { DEFAULT_ALGORITHMS } from '../../src/schemas/values.js';
import { DEFAULT_ANSWER_FLOOR_MS } from '../../src/schemas/config.js';
import { composeApp } from '../../src/compose/app.js';
import type { App, InjectResponse } from '../../src/http/app.js';
import type { KeyCache } from '../../src/ceremonies/key-cache.js';
import type { OperationOutcome, ServiceHooks } from '../../src/service.js';
import type { ServiceDeps } from '../../src/ceremonies/deps.js';
import type { Logger } from '../../src/util/log.js';
import { MemoryChallengeStore } from '../../src/stores/memory/challenges.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import type { ChallengeStore, CredentialRecord, CredentialStore } from '../../src/stores/types.js';
import { systemRuntime, type Runtime, type Timer } from '../../src/util/runtime.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type { X509Certificate } from 'node:crypto';
import type { TrustEvaluator } from '../../src/webauthn/attestation/types.js';
import type { MlDsaVerifier } from '../../src/webauthn/ml-dsa.js';
import { SoftAuthenticator, type SoftAuthenticatorOptions } from './soft-authenticator.js';
import type { CredentialSnapshots } from '../../src/ceremonies/credential-snapshots.js';

export const CLIENT_ID = 'test-client';
export const DOMAIN = 'idp.example.test';
export const ORIGIN = 'https://idp.example.test';
export const LOCAL_ORIGIN = 'https://localhost:8443';
export const VENDOR = 'Vendor';
export const START = Date.UTC(2026, 10, 22, 4, 0, 0);

export const PATHS = {
  attestationOptions: '/api/attestation/options',
  attestationResult: '/api/attestation/result',
  assertionOptions: '/api/assertion/options',
  assertionResult: '/api/assertion/result',
} as const;

export function applicationConfig(overrides: Partial<ApplicationConfig> = {}): ApplicationConfig {
  return {
    clientId: CLIENT_ID,
    name: 'Test IdP',
    icon: '',
    domain: DOMAIN,
    origins: [ORIGIN],
    variants: ['standard', 'local'],
    localOrigins: ['https://localhost'],
    timeoutMs: 180_000,
    algorithms: DEFAULT_ALGORITHMS,
    userVerification: null,
    counterPolicy: 'strict',
    revealUnknownUsers: false,
    allowCrossOrigin: false,
    maxPasskeysPerUser: 100,
    attestation: { trustAnchors: [], requireTrusted: false, metadata: null, aaguidAllow: [], aaguidDeny: [] },
    ...overrides,
  };
}

export function serviceConfig(
  applications: readonly ApplicationConfig[],
  overrides: Partial<ServiceConfig> = {},
): ServiceConfig {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    database: { kind: 'sqlite', path: ':memory:' },
    challenges: { kind: 'memory' },
    local: { enabled: true },
    demo: { enabled: false, host: '127.0.0.1', port: 0 },
    vendor: VENDOR,
    dataDir: '/nonexistent',
    secretsFile: '/nonexistent/secrets.json',
    limits: { bodyBytes: 65_536, usernameLength: 256, displayNameLength: 256 },
    answerFloorMs: DEFAULT_ANSWER_FLOOR_MS,
    applications,
    ...overrides,
  };
}

export class FakeClock {
  constructor(public time = START) {}
  now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface FakeTimer {
  /** The fake clock's time when it was started, and its delay. */
  readonly startedAt: number;
  readonly ms: number;
  state: 'pending' | 'fired' | 'cleared';
}

/**
 * The harness's timers (Runtime.startTimer), on its fake clock: every one started is kept in `started`.
 * `instant` (the default): a timer fires at once, so the answer floor costs the tests no time; `manual`: a
 * timer fires only when `advance` moves the clock to its end.
 */
export class FakeTimers {
  readonly started: FakeTimer[] = [];
  readonly #due: { timer: FakeTimer; fire: () => void }[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly mode: 'instant' | 'manual',
  ) {}

  start = (ms: number): Timer => {
    const timer: FakeTimer = { startedAt: this.clock.now(), ms, state: 'pending' };
    this.started.push(timer);
    if (this.mode === 'instant') {
      timer.state = 'fired';
      return { elapsed: Promise.resolve(), clear: () => {} };
    }
    const elapsed = new Promise<void>((resolve) => this.#due.push({ timer, fire: resolve }));
    return {
      elapsed,
      clear: () => {
        if (timer.state === 'pending') timer.state = 'cleared';
      },
    };
  };

  /** Moves the clock `ms` on and fires the pending timers whose end it reached. */
  advance(ms: number): void {
    this.clock.advance(ms);
    for (const { timer, fire } of this.#due.splice(0)) {
      if (timer.state === 'pending' && timer.startedAt + timer.ms <= this.clock.now()) {
        timer.state = 'fired';
        fire();
      }
      if (timer.state === 'pending') this.#due.push({ timer, fire });
    }
  }
}

/** Deterministic bytes: SHA-256 of (seed, counter) blocks. Distinct on every call, same across runs. */
export function deterministicRandom(seed = 'test'): (size: number) => Buffer {
  let counter = 0;
  return (size) => {
    const blocks: Buffer[] = [];
    let have = 0;
    while (have < size) {
      const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
      blocks.push(block);
      have += block.length;
    }
    return Buffer.concat(blocks).subarray(0, size);
  };
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

export interface HarnessOptions {
  readonly apps?: readonly ApplicationConfig[];
  readonly config?: Partial<ServiceConfig>;
  readonly anchors?: readonly X509Certificate[];
  readonly hooks?: ServiceHooks;
  readonly credentials?: CredentialStore;
  readonly challenges?: ChallengeStore;
  readonly keyCache?: KeyCache;
  /** The sign-in snapshots (src/ceremonies/credential-snapshots.ts), to watch them. */
  readonly snapshots?: CredentialSnapshots;
  /** Every application's trust evaluator instead of the one built from its `attestation` policy. */
  readonly trust?: TrustEvaluator;
  /** The ML-DSA verifier (default: the runtime's choice). */
  readonly mlDsa?: MlDsaVerifier;
  /** The timers (the answer floor's): fake ones on the fake clock (`FakeTimers`, default instant) or node's (`real`). */
  readonly timers?: 'instant' | 'manual' | 'real';
}

export interface RequestOptions {
  /** Default ORIGIN; null sends no origin header. */
  readonly origin?: string | null;
  /** Default CLIENT_ID; null sends no User-agent. */
  readonly clientId?: string | null;
  readonly headers?: Record<string, string>;
}

export class Harness {
  readonly clock = new FakeClock();
  readonly timers: FakeTimers;
  readonly memoryCredentials = new MemoryCredentialStore();
  readonly memoryChallenges: MemoryChallengeStore;
  readonly logs: LogLine[] = [];
  readonly outcomes: OperationOutcome[] = [];
  readonly deps: ServiceDeps;
  readonly app: App;

  constructor(options: HarnessOptions = {}) {
    this.memoryChallenges = new MemoryChallengeStore({ clock: this.clock.now });
    const apps = options.apps ?? [applicationConfig()];
    // The service's own wiring (src/compose/app.ts), with in-memory anchors instead of the policy's files.
    const buildTrust = (policy: ApplicationConfig['attestation']): TrustEvaluator =>
      options.trust ??
      createTrustEvaluator({
        anchors: options.anchors ?? [],
        requireTrusted: policy.requireTrusted,
        aaguidAllow: policy.aaguidAllow,
        aaguidDeny: policy.aaguidDeny,
      });
    const timers = options.timers ?? 'instant';
    this.timers = new FakeTimers(this.clock, timers === 'real' ? 'instant' : timers);
    const runtime: Runtime = {
      now: this.clock.now,
      randomBytes: deterministicRandom(),
      startTimer: timers === 'real' ? systemRuntime.startTimer : this.timers.start,
    };
    const log: Logger = {
      info: (fields, message) => this.logs.push({ level: 'info', fields, message }),
      warn: (fields, message) => this.logs.push({ level: 'warn', fields, message }),
      error: (fields, message) => this.logs.push({ level: 'error', fields, message }),
    };
    const userHooks = options.hooks;
    const composed = composeApp({
      config: serviceConfig(apps, options.config),
      buildTrust,
      credentials: options.credentials ?? this.memoryCredentials,
      challenges: options.challenges ?? this.memoryChallenges,
      secrets: {
        userHandleKey: Buffer.alloc(32, 7),
        localBlobKeys: [{ id: 'k1', key: Buffer.alloc(32, 9) }],
      },
      runtime,
      log,
      ...(options.mlDsa ? { extra: { mlDsa: options.mlDsa } } : {}),
      hooks: {
        ...userHooks,
        onOutcome: (outcome) => {
          this.outcomes.push(outcome);
          userHooks?.onOutcome?.(outcome);
        },
      },
      app: {
        ...(options.keyCache && { keyCache: options.keyCache }),
        ...(options.snapshots && { snapshots: options.snapshots }),
      },
    });
    this.deps = composed.deps;
    this.app = composed.app;
  }

  headers(options: RequestOptions = {}): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const clientId = options.clientId === undefined ? CLIENT_ID : options.clientId;
    if (clientId !== null) headers['user-agent'] = `${VENDOR} AppID: ${clientId}`;
    const origin = options.origin === undefined ? ORIGIN : options.origin;
    if (origin !== null) headers.origin = origin;
    return { ...headers, ...options.headers };
  }

  post(path: string, body: unknown, options: RequestOptions = {}): Promise<InjectResponse> {
    return this.app.inject({
      method: 'POST',
      url: path,
      headers: this.headers(options),
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  }

  /** Everything the stores hold, to prove a failed request changed nothing. */
  async snapshot(userHandles: readonly string[] = []): Promise<string> {
    const lists = await Promise.all(userHandles.map((h) => this.deps.credentials.listByUser(CLIENT_ID, h)));
    return JSON.stringify({ challenges: this.memoryChallenges.size, lists: lists.map((l) => l.map(stableCredential)) });
  }
}

function stableCredential(record: CredentialRecord): Record<string, unknown> {
  return { ...record, publicKey: Buffer.from(record.publicKey).toString('base64url') };
}

export const username = (user: string, domain = DOMAIN): string => `${user}#${domain}`;

/** A standard-variant sign-up and sign-in flow with one soft authenticator. */
export class Flow {
  readonly authenticator: SoftAuthenticator;

  constructor(
    readonly h: Harness,
    readonly user: string,
    options: SoftAuthenticatorOptions = {},
    readonly origin: string = ORIGIN,
  ) {
    this.authenticator = new SoftAuthenticator({ origin, ...options });
  }

  async attestationOptions(body: Record<string, unknown> = {}, request: RequestOptions = {}): Promise<any> {
    const res = await this.h.post(
      PATHS.attestationOptions,
      { username: this.user, ...body },
      { origin: this.origin, ...request },
    );
    if (res.status !== 200) throw new Error(`attestation options failed: ${res.body}`);
    return res.json();
  }

  async assertionOptions(body: Record<string, unknown> = {}, request: RequestOptions = {}): Promise<any> {
    const res = await this.h.post(
      PATHS.assertionOptions,
      { username: this.user, ...body },
      { origin: this.origin, ...request },
    );
    if (res.status !== 200) throw new Error(`assertion options failed: ${res.body}`);
    return res.json();
  }

  /** Options → authenticator → result; returns the result response and the credential JSON sent. */
  async register(
    registerOptions: Parameters<SoftAuthenticator['register']>[1] = {},
    optionsBody: Record<string, unknown> = {},
    mutate: (credential: any) => any = (c) => c,
  ): Promise<{ res: InjectResponse; credential: any; options: any }> {
    const options = await this.attestationOptions(optionsBody);
    const credential = mutate(JSON.parse(JSON.stringify(this.authenticator.register(options, registerOptions))));
    const res = await this.h.post(PATHS.attestationResult, credential, { origin: this.origin });
    return { res, credential, options };
  }

  async authenticate(
    authenticateOptions: Parameters<SoftAuthenticator['authenticate']>[1] = {},
    optionsBody: Record<string, unknown> = {},
    mutate: (credential: any) => any = (c) => c,
  ): Promise<{ res: InjectResponse; credential: any; options: any }> {
    const options = await this.assertionOptions(optionsBody);
    const credential = mutate(
      JSON.parse(JSON.stringify(this.authenticator.authenticate(options, authenticateOptions))),
    );
    const res = await this.h.post(PATHS.assertionResult, credential, { origin: this.origin });
    return { res, credential, options };
  }
}

/** Asserts the failed envelope with this name and HTTP status; returns the description. */
export function expectFailure(res: InjectResponse, name: string, status: number): string {
  const body = res.json();
  const detail = `${res.status} ${res.body}`;
  if (
    res.status !== status ||
    body.status !== 'failed' ||
    !Array.isArray(body.errorMessage) ||
    body.errorMessage[0] !== name
  ) {
    throw new Error(`expected ${status} ${name}, got ${detail}`);
  }
  if (body.sessionId !== '' || typeof body.errorMessage[1] !== 'string' || body.errorMessage[1].length === 0) {
    throw new Error(`malformed failure envelope: ${detail}`);
  }
  if (!res.headers['x-request-id']) throw new Error('missing X-Request-Id');
  return body.errorMessage[1];
}

export function expectOk(res: InjectResponse): any {
  const body = res.json();
  if (res.status !== 200 || body.status !== 'ok' || body.errorMessage !== '' || body.sessionId !== '') {
    throw new Error(`expected ok, got ${res.status} ${res.body}`);
  }
  return body;
}
