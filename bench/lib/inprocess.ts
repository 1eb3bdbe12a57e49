// Sections 1 and 2 of the bench, in this process: the raw ECDSA P-256 verify floor, then our registration
// and authentication verification next to @simplewebauthn/server on the very same inputs.

import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { verifyAuthentication } from '../../src/webauthn/authentication.js';
import { parseClientData } from '../../src/webauthn/client-data.js';
import { ecPointOnCurve, importCosePublicKey } from '../../src/webauthn/cose-key.js';
import { parseAuthentication, parseRegistration } from '../../src/webauthn/parse.js';
import { verifyRegistration } from '../../src/webauthn/registration.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../../src/webauthn/types.js';
import {
  Authenticator,
  keyPool,
  type AssertionJSON,
  type Credential,
  type Fmt,
  type RegistrationJSON,
} from './authenticator.js';

const RP_ID = 'bench.example.test';
const ORIGIN = `https://${RP_ID}`;
const INPUTS = 64;

export interface Measured {
  readonly name: string;
  readonly ops: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

export const opsPerSecond = (m: Measured) => m.ops / m.seconds;
export const cpuMicrosPerOp = (m: Measured) => (m.cpuSeconds / m.ops) * 1e6;

type Op = (i: number) => unknown;

/** Runs each op in batches of 16 for `seconds`; counts ops, wall time and this process's CPU time. */
async function slice(
  op: Op,
  seconds: number,
  into: { ops: number; seconds: number; cpuSeconds: number },
): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    // 16 in flight: async verifiers (WebCrypto) get their best throughput, sync ones lose nothing.
    const batch: unknown[] = [];
    for (let j = 0; j < 16; j++) batch.push(op(into.ops + j));
    await Promise.all(batch);
    into.ops += 16;
  }
  const cpu = process.cpuUsage(cpu0);
  into.seconds += (performance.now() - t0) / 1000;
  into.cpuSeconds += (cpu.user + cpu.system) / 1e6;
}

/**
 * Measures several ops side by side: after a warm-up, short slices of each in turn until each had
 * `seconds`, so that a noisy neighbour slows all of them alike and their ratios stay meaningful.
 */
export async function sideBySide(seconds: number, ops: readonly (readonly [string, Op])[]): Promise<Measured[]> {
  for (const [, op] of ops) for (let i = 0; i < 200; i++) await op(i);
  const totals = ops.map(() => ({ ops: 0, seconds: 0, cpuSeconds: 0 }));
  const slices = Math.max(1, Math.round(seconds / 0.25));
  for (let k = 0; k < slices; k++) {
    for (const [i, [, op]] of ops.entries()) await slice(op, seconds / slices, totals[i]!);
  }
  return ops.map(([name], i) => ({ name, ...totals[i]! }));
}

interface RegInput {
  readonly challenge: string;
  readonly json: RegistrationJSON;
}
interface AuthInput {
  readonly challenge: string;
  readonly json: AssertionJSON;
  readonly credential: Credential;
}

function registrationInputs(fmt: Fmt): RegInput[] {
  const authenticator = new Authenticator(RP_ID, ORIGIN);
  const keys = keyPool(8);
  return Array.from({ length: INPUTS }, (_, i) => {
    const challenge = randomBytes(32).toString('base64url');
    const { json } = authenticator.register(
      challenge,
      randomBytes(32).toString('base64url'),
      keys[i % keys.length]!,
      fmt,
    );
    return { challenge, json };
  });
}

function authenticationInputs(): AuthInput[] {
  const authenticator = new Authenticator(RP_ID, ORIGIN);
  const keys = keyPool(8);
  return Array.from({ length: INPUTS }, (_, i) => {
    const { credential } = authenticator.register(
      randomBytes(32).toString('base64url'),
      randomBytes(32).toString('base64url'),
      keys[i % keys.length]!,
      'none',
    );
    const challenge = randomBytes(32).toString('base64url');
    // Counter 1 against a stored 0: every repetition of this input passes the counter check.
    return { challenge, json: authenticator.assert(challenge, credential), credential };
  });
}

const trust = createTrustEvaluator({ anchors: [], requireTrusted: false, metadata: null });
const exactOrigin = (origin: string) => origin === ORIGIN;

function oursRegister(input: RegInput): void {
  const json = input.json as unknown as RegistrationCredentialJSON;
  const clientData = parseClientData(json.response.clientDataJSON);
  const parsed = parseRegistration(json, clientData);
  verifyRegistration(parsed, {
    challenge: input.challenge,
    isAllowedOrigin: exactOrigin,
    allowCrossOrigin: false,
    rpId: RP_ID,
    requireUserVerification: false,
    algorithms: [-7, -257],
    trust,
    now: new Date(),
  });
}

function oursAuthenticate(input: AuthInput, key: KeyObject): void {
  const json = input.json as unknown as AuthenticationCredentialJSON;
  const clientData = parseClientData(json.response.clientDataJSON);
  const parsed = parseAuthentication(json, clientData);
  verifyAuthentication(parsed, {
    challenge: input.challenge,
    isAllowedOrigin: exactOrigin,
    allowCrossOrigin: false,
    rpId: RP_ID,
    requireUserVerification: false,
    counterPolicy: 'strict',
    credential: {
      publicKey: key,
      algorithm: -7,
      signCount: 0,
      userHandle: input.credential.userHandle,
      backupEligible: false,
    },
  });
}

async function swaRegister(input: RegInput): Promise<void> {
  const result = await verifyRegistrationResponse({
    response: input.json as never,
    expectedChallenge: input.challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification: false,
  });
  if (!result.verified) throw new Error('SimpleWebAuthn refused a bench registration');
}

async function swaAuthenticate(input: AuthInput): Promise<void> {
  const result = await verifyAuthenticationResponse({
    response: input.json as never,
    expectedChallenge: input.challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification: false,
    credential: { id: input.credential.idText, publicKey: new Uint8Array(input.credential.key.cose), counter: 0 },
  });
  if (!result.verified) throw new Error('SimpleWebAuthn refused a bench assertion');
}

export interface InProcessResults {
  readonly keyImport: Measured;
  readonly onCurve: Measured;
  readonly rawVerify: Measured;
  readonly rows: readonly {
    readonly operation: string;
    readonly ours: Measured;
    readonly theirs: Measured;
    readonly oursNoCache?: Measured;
  }[];
}

export async function runInProcess(seconds: number): Promise<InProcessResults> {
  const auth = authenticationInputs();
  const keys = auth.map((a) => importCosePublicKey(a.credential.key.cose).keyObject);

  // Floor: one reused KeyObject, the exact bytes our verifier checks (authenticatorData ‖ SHA-256(clientDataJSON)).
  const rawKey = createPublicKey({ key: keys[0]!.export({ format: 'jwk' }), format: 'jwk' });
  const first = auth[0]!;
  const signed = Buffer.concat([
    Buffer.from(first.json.response.authenticatorData, 'base64url'),
    parseClientData(first.json.response.clientDataJSON).hash,
  ]);
  const signature = Buffer.from(first.json.response.signature, 'base64url');

  const cose = auth[0]!.credential.key.cose;
  const jwk = keys[0]!.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  const [rawVerify, keyImport, onCurve] = await sideBySide(seconds, [
    [
      'raw node:crypto verify (P-256, reused KeyObject)',
      () => {
        if (!verify('sha256', signed, { key: rawKey, dsaEncoding: 'der' }, signature))
          throw new Error('raw verify failed');
      },
    ],
    // What a credential key costs where it is used (packed self, the first authentication through the key
    // cache), next to what every registration pays at parse time instead (the point check of ecPointOnCurve).
    [
      'COSE key import at first use (importCosePublicKey(cose).keyObject: CBOR, checks, createPublicKey)',
      () => importCosePublicKey(cose).keyObject,
    ],
    [
      'P-256 on-curve check (ecPointOnCurve, what registration pays now)',
      () => {
        if (!ecPointOnCurve('P-256', x, y)) throw new Error('on-curve check refused a real key');
      },
    ],
  ]);

  const regNone = registrationInputs('none');
  const regPacked = registrationInputs('packed');
  const rows = [];
  for (const [operation, inputs] of [
    ['registration (none)', regNone],
    ['registration (packed self)', regPacked],
  ] as const) {
    const [ours, theirs] = await sideBySide(seconds, [
      [`ours ${operation}`, (i) => oursRegister(inputs[i % INPUTS]!)],
      [`SimpleWebAuthn ${operation}`, (i) => swaRegister(inputs[i % INPUTS]!)],
    ]);
    rows.push({ operation, ours: ours!, theirs: theirs! });
  }
  const [ours, oursNoCache, theirs] = await sideBySide(seconds, [
    [
      'ours authentication (cached KeyObject, as the service runs)',
      (i) => oursAuthenticate(auth[i % INPUTS]!, keys[i % INPUTS]!),
    ],
    [
      'ours authentication (COSE key imported every time)',
      (i) => oursAuthenticate(auth[i % INPUTS]!, importCosePublicKey(auth[i % INPUTS]!.credential.key.cose).keyObject),
    ],
    ['SimpleWebAuthn authentication', (i) => swaAuthenticate(auth[i % INPUTS]!)],
  ]);
  rows.push({ operation: 'authentication (ES256)', ours: ours!, theirs: theirs!, oursNoCache: oursNoCache! });
  return { keyImport: keyImport!, onCurve: onCurve!, rawVerify: rawVerify!, rows };
}
