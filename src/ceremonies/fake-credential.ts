// The stand-in credential of a user without credentials (docs/decisions.md "Options responses"): assertion
// options offer it so that their answer does not tell who is registered, and a result signed for it is
// verified like a real credential's, against a dummy public key, so that it fails with the same name,
// status and cost as a real credential with a bad signature.
//
// Both are derived from the user-handle key under their own labels, and remembered: deriving per call made
// unknown users measurably slower at options than known ones. standInRecords makes the stand-in a record
// like a stored one, so that it goes through the very code (and cost) of a registered user's credential.
// Each variant learns the shapes of its own credentials (a local variant's security keys look nothing like
// the standard variant's synced passkeys), so each variant's stand-in looks like that variant's credentials.

import { createHmac } from 'node:crypto';
import type { CredentialRecord } from '../stores/types.js';
import { remembered } from '../util/remembered.js';
import { encodeCbor } from '../webauthn/cbor-encode.js';

export interface FakeCredential {
  /** base64url of as many bytes as the credential it imitates (FAKE_ID_BYTES before any is seen). */
  readonly id: string;
  readonly transports: readonly string[];
}

/**
 * What the stand-in imitates before the application's own credentials were seen: a synced platform passkey
 * (iCloud Keychain's ids are 20 bytes), with the transports browsers report for one, in canonical order.
 */
const FAKE_ID_BYTES = 20;
const FAKE_TRANSPORTS: readonly string[] = Object.freeze(['hybrid', 'internal']);

/** A stored credential's shape: what a stand-in must share with it (id length, transports in canonical order). */
interface Shape {
  readonly idBytes: number;
  readonly transports: readonly string[];
}

/** Whose credentials a stand-in imitates: the standard variant's stored ones, or the ids the local variant remembers. */
export type ShapePool = 'standard' | 'local';

/** The key of an application's shapes in one pool (the standard pool keeps the bare Client ID). */
function poolKey(clientId: string, pool: ShapePool): string {
  return pool === 'standard' ? clientId : `${clientId}\u0000${pool}`;
}

/** The shapes of an application's credentials seen so far, replaced round-robin once full. */
const SHAPES_PER_APPLICATION = 256;
const APPLICATIONS_SHAPED = 1024;

interface Shapes {
  readonly list: Shape[];
  next: number;
}

/** The algorithm of the dummy key: ES256, the one most real credentials use. */
export const FAKE_CREDENTIAL_ALGORITHM = -7;

const REMEMBERED_FAKES = 4096;

interface Derived {
  readonly idKey: Buffer;
  readonly fakes: Map<string, FakeCredential>;
  readonly records: Map<string, CredentialRecord>;
  /** Per Client ID and pool: the shapes of the credentials registered users' options listed (noteCredentialShapes). */
  readonly shapes: Map<string, Shapes>;
  dummyKey?: Uint8Array;
}

const derivedByKey = new WeakMap<Buffer, Derived>();

function derivedFor(key: Buffer): Derived {
  let derived = derivedByKey.get(key);
  if (derived === undefined) {
    const idKey = createHmac('sha256', key).update('passkey-server fake credential id v1', 'utf8').digest();
    derived = { idKey, fakes: new Map(), records: new Map(), shapes: new Map() };
    derivedByKey.set(key, derived);
  }
  return derived;
}

/**
 * Learns what the application's credentials look like from a registered user's list (each id's length, its
 * transports in canonical order), so that stand-ins are drawn from the same shapes. Bounded per application
 * and in applications; one slot written per call. An unknown user's options call it too, on the stand-in,
 * with `learn` false: the same steps, nothing written (a stand-in's shape is not the application's).
 */
export function noteCredentialShapes(
  key: Buffer,
  clientId: string,
  credentials: readonly Pick<CredentialRecord, 'credentialId' | 'transports'>[],
  learn = true,
  pool: ShapePool = 'standard',
): void {
  const { shapes } = derivedFor(key);
  const credential = credentials[0];
  if (credential === undefined) return;
  const shape: Shape = {
    idBytes: Math.floor((credential.credentialId.length * 3) / 4),
    transports: canonicalTransports(credential.transports),
  };
  const seen = remembered(shapes, poolKey(clientId, pool), APPLICATIONS_SHAPED, () => ({ list: [], next: 0 }));
  if (!learn) return;
  if (seen.list.length < SHAPES_PER_APPLICATION) seen.list.push(shape);
  else seen.list[seen.next] = shape;
  seen.next = (seen.next + 1) % SHAPES_PER_APPLICATION;
}

/** Transports in the one order every descriptor uses, stored and stand-in alike: lexicographic. */
export function canonicalTransports(transports: readonly string[]): string[] {
  return [...transports].sort();
}

/**
 * The stand-in for (Client ID, username): stable, different per user, the same object while remembered.
 * Its shape is one the application's credentials of `pool` have (drawn by the user's HMAC among those
 * seen), so its id is as long as the ids the application really lists.
 */
export function fakeCredentialFor(
  key: Buffer,
  clientId: string,
  username: string,
  pool: ShapePool = 'standard',
): FakeCredential {
  const { idKey, fakes, shapes } = derivedFor(key);
  const input = `${clientId}\u0000${username}`;
  return remembered(fakes, `${input}\u0000${pool}`, REMEMBERED_FAKES, () => {
    const seed = createHmac('sha256', idKey).update(input, 'utf8').digest();
    const seen = shapes.get(poolKey(clientId, pool))?.list ?? [];
    const shape = seen.length === 0 ? undefined : seen[seed.readUInt32BE(0) % seen.length];
    return Object.freeze({
      id: idBytes(idKey, seed, shape?.idBytes ?? FAKE_ID_BYTES).toString('base64url'),
      transports: shape?.transports ?? FAKE_TRANSPORTS,
    });
  });
}

/** `length` bytes from the user's seed (HMAC blocks, as HKDF-Expand chains them). */
function idBytes(idKey: Buffer, seed: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [seed];
  for (let have = seed.length, i = 1; have < length; i++) {
    const block = createHmac('sha256', idKey)
      .update(blocks[blocks.length - 1]!)
      .update(String(i))
      .digest();
    blocks.push(block);
    have += block.length;
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/**
 * The stand-in as a store read would return a registered user's one credential: a fresh record of every
 * field, with fresh key bytes and transports, so that an unknown user's answer is made by the same code
 * (descriptorOf, the result's verification path) from the same shape of data as a registered user's. Made
 * the way a store reads a user's credentials, step by step (the user's ids, each id's held record, a copy
 * of it, the list in creation order), so that it also costs what a registered user's read costs; only on
 * the unknown path, a registered user's answer never builds it.
 */
export function standInRecords(
  key: Buffer,
  clientId: string,
  username: string,
  userHandle: string,
): CredentialRecord[] {
  const { records } = derivedFor(key);
  const list: CredentialRecord[] = [];
  for (const id of [fakeCredentialFor(key, clientId, username).id]) {
    const held = remembered(records, `${clientId}\u0000${id}`, REMEMBERED_FAKES, () =>
      heldRecord(key, clientId, id, username, userHandle),
    );
    list.push(copyOf(held));
  }
  return list.sort((a, b) => a.createdAt - b.createdAt || (a.credentialId < b.credentialId ? -1 : 1));
}

function heldRecord(
  key: Buffer,
  clientId: string,
  credentialId: string,
  username: string,
  userHandle: string,
): CredentialRecord {
  return Object.freeze({
    clientId,
    credentialId,
    userHandle,
    username,
    publicKey: fakeCredentialKey(key),
    algorithm: FAKE_CREDENTIAL_ALGORITHM,
    signCount: 0,
    transports: fakeCredentialFor(key, clientId, username).transports,
    aaguid: ZERO_AAGUID,
    attestationFormat: 'none',
    attestationType: 'none',
    attestationTrusted: false,
    backupEligible: false,
    backupState: false,
    userVerified: true,
    residentKey: null,
    cloneWarning: false,
    createdAt: 0,
    lastUsedAt: null,
    nickname: null,
    authenticatorName: null,
    // What registration stores when the options named no display name: the user part of the name.
    displayName: username.slice(0, username.lastIndexOf('#')),
  });
}

/**
 * A copy in the shape a store returns: the optional fields absent when null, fresh bytes and transports.
 * The same steps as the memory store's copy (src/stores/memory/credentials.ts), status fields included.
 */
function copyOf(record: CredentialRecord): CredentialRecord {
  const { nickname, authenticatorName, displayName, authenticatorStatus, authenticatorStatusAt, ...rest } = record;
  return {
    ...rest,
    publicKey: Uint8Array.from(record.publicKey),
    transports: [...record.transports],
    ...(nickname == null ? {} : { nickname }),
    ...(authenticatorName == null ? {} : { authenticatorName }),
    ...(displayName == null ? {} : { displayName }),
    ...(authenticatorStatus == null ? {} : { authenticatorStatus, authenticatorStatusAt: authenticatorStatusAt ?? 0 }),
  };
}

const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';

/** The dummy key (COSE_Key bytes, ES256) every stand-in is verified against: one per user-handle key. */
export function fakeCredentialKey(key: Buffer): Uint8Array {
  const derived = derivedFor(key);
  derived.dummyKey ??= dummyPoint(key);
  return derived.dummyKey;
}

// P-256 (SEC 2 §2.4.2): y² = x³ - 3x + b over the prime field p.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * A curve point found by hashing (try x = HMAC(key, label ‖ n) until x³ - 3x + b is a square): a valid
 * public key whose private key no one knows, so no signature can ever verify against it.
 */
function dummyPoint(key: Buffer): Uint8Array {
  for (let n = 0; ; n++) {
    const x =
      BigInt(`0x${createHmac('sha256', key).update(`passkey-server dummy key v1 ${n}`, 'utf8').digest('hex')}`) % P;
    const rhs = mod(x * x * x - 3n * x + B);
    // p ≡ 3 (mod 4): the square root, when there is one, is rhs^((p+1)/4).
    const y = power(rhs, (P + 1n) / 4n);
    if (mod(y * y) !== rhs) continue;
    return encodeCbor(
      new Map<number, number | Buffer>([
        [1, 2],
        [3, FAKE_CREDENTIAL_ALGORITHM],
        [-1, 1],
        [-2, bytes32(x)],
        [-3, bytes32(y)],
      ]),
    );
  }
}

function mod(value: bigint): bigint {
  const r = value % P;
  return r < 0n ? r + P : r;
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  for (let b = mod(base), e = exponent; e > 0n; e >>= 1n, b = mod(b * b)) {
    if (e & 1n) result = mod(result * b);
  }
  return result;
}

function bytes32(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}
