// The local variant stores nothing: instead of a credential row, the attestation result hands the caller a
// sealed blob (`localhost`) holding what the standard variant would store, and every assertion result brings
// it back in `extensions.localhost`. The blob is authenticated AND encrypted, so the caller can neither read
// nor change it; a key id in clear lets several keys coexist (newest seals, all open) for rotation.
//
// Wire format (docs/local-variant.md), base64url without padding:
//
//   header  = version (u8 = 1) | keyIdLength (u8, 1..255) | keyId (UTF-8) | sealedLength (u16 BE)
//   blob    = header | nonce (12 bytes) | AES-256-GCM ciphertext (sealedLength bytes) | tag (16 bytes)
//
// The whole header is the GCM additional data, so version, key id and length are authenticated too.
// sealedLength lets a truncated blob be told apart from a tampered one. The plaintext is the compact binary
// record of `encodeCredential` below: the blob travels on every sign-in, so no JSON, no base64 inside.

import { createCipheriv, createDecipheriv } from 'node:crypto';
import { FidoError } from '../errors.js';
import type { LocalBlobKey } from '../service.js';
import type { CredentialRecord } from '../stores/types.js';
import type { AttestationType } from '../webauthn/types.js';
import { decodeBase64url, encodeBase64url } from '../util/base64url.js';

export type { LocalBlobKey };

/**
 * What the standard variant would store for a credential (the same fields as CredentialRecord, so the two
 * cannot drift apart), sealed into the `localhost` blob instead. `signCount` is the counter at registration,
 * the only one the service ever learns; `rpId` is always `localhost`, kept so the blob is self-describing.
 */
export type LocalCredential = Pick<CredentialRecord,
  | 'clientId' | 'userHandle' | 'username' | 'credentialId' | 'publicKey' | 'algorithm' | 'signCount' | 'transports'
  | 'aaguid' | 'attestationFormat' | 'attestationType' | 'attestationTrusted' | 'backupEligible' | 'backupState'
  | 'userVerified' | 'residentKey' | 'createdAt'> & { readonly rpId: string };

export const LOCAL_BLOB_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/**
 * Far above any real blob (an ES256 passkey makes about 350 characters; the longest username and credential
 * id the service accepts stay below it); refuses work on junk early. Sealing refuses to exceed it too.
 */
export const LOCAL_BLOB_MAX_CHARS = 32_768;

/** The ceremony the blob is presented in: it must be the one the blob was issued for. */
export interface LocalBlobExpectation {
  readonly clientId: string;
  /** base64url credential id the assertion was signed with (id/rawId). */
  readonly credentialId: string;
  /** base64url user handle of the user the ceremony is for; omitted = not checked. */
  readonly userHandle?: string;
}

/** Seals `credential` under the first (newest) key. Throws a plain Error on a programming or configuration mistake. */
export function sealLocalCredential(
  credential: LocalCredential,
  keys: readonly LocalBlobKey[],
  randomBytes: (n: number) => Buffer,
): string {
  const key = keys[0];
  if (!key) throw new Error('No local-blob key is configured: the local variant cannot seal credentials.');
  const keyBytes = checkedKey(key);
  const plaintext = encodeCredential(credential);
  const header = encodeHeader(key.id, plaintext.length);
  const nonce = randomBytes(NONCE_BYTES);
  if (nonce.length !== NONCE_BYTES) throw new Error('randomBytes returned the wrong number of bytes.');
  const cipher = createCipheriv('aes-256-gcm', keyBytes, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const blob = encodeBase64url(Buffer.concat([header, nonce, sealed, cipher.getAuthTag()]));
  // Never hand out a blob that opening would refuse.
  if (blob.length > LOCAL_BLOB_MAX_CHARS) throw new Error('The local credential is too large to seal.');
  return blob;
}

/**
 * Opens a blob presented in `extensions.localhost` and checks it belongs to this ceremony.
 * Every failure is a FidoError with a LOCAL_BLOB_* name; no text ever includes key material.
 */
export function openLocalCredential(
  blob: unknown,
  keys: readonly LocalBlobKey[],
  expected: LocalBlobExpectation,
): LocalCredential {
  const bytes = decodeBlobText(blob);
  const { header, keyId, sealedLength } = decodeHeader(bytes);
  const key = keys.find((candidate) => candidate.id === keyId);
  if (!key) throw new FidoError('LOCAL_BLOB_KEY_UNKNOWN', `No local-blob key has the id ${describeKeyId(keyId)}.`);
  const body = bytes.subarray(header.length);
  if (body.length !== NONCE_BYTES + sealedLength + TAG_BYTES) {
    throw new FidoError('LOCAL_BLOB_MALFORMED', body.length < NONCE_BYTES + sealedLength + TAG_BYTES
      ? 'The blob is truncated.'
      : 'The blob has trailing bytes.');
  }
  const plaintext = decrypt(checkedKey(key), header, body, sealedLength);
  const credential = decodeCredential(plaintext);
  checkExpected(credential, expected);
  return credential;
}

/** The same facts as a store row, so the assertion can reuse the standard variant's code paths. */
export function localCredentialFromRecord(record: CredentialRecord, rpId = 'localhost'): LocalCredential {
  return {
    clientId: record.clientId, rpId, userHandle: record.userHandle, username: record.username,
    credentialId: record.credentialId, publicKey: record.publicKey, algorithm: record.algorithm,
    signCount: record.signCount, transports: record.transports, aaguid: record.aaguid,
    attestationFormat: record.attestationFormat, attestationType: record.attestationType,
    attestationTrusted: record.attestationTrusted, backupEligible: record.backupEligible,
    backupState: record.backupState, userVerified: record.userVerified, residentKey: record.residentKey,
    createdAt: record.createdAt,
  };
}

/** A store-shaped view of an opened blob (never written anywhere: the local variant stores nothing). */
export function recordFromLocalCredential(credential: LocalCredential): CredentialRecord {
  const { rpId: _rpId, ...rest } = credential;
  return { ...rest, cloneWarning: false, lastUsedAt: null };
}

// ----- Text and header -----

function decodeBlobText(blob: unknown): Buffer {
  if (blob === undefined || blob === null || blob === '') {
    throw new FidoError('LOCAL_BLOB_MISSING', 'extensions.localhost is absent or empty.');
  }
  if (typeof blob !== 'string') {
    throw new FidoError('LOCAL_BLOB_NOT_STRING', blob === true
      ? 'extensions.localhost is true: send true only with the attestation result; send the kept string with the assertion result.'
      : `extensions.localhost is ${Array.isArray(blob) ? 'an array' : typeof blob}, not a string.`);
  }
  if (blob.length > LOCAL_BLOB_MAX_CHARS) {
    throw new FidoError('LOCAL_BLOB_MALFORMED', `The blob is longer than ${LOCAL_BLOB_MAX_CHARS} characters.`);
  }
  const bytes = decodeBase64url(blob);
  if (!bytes) throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob is not base64url without padding.');
  return bytes;
}

function encodeHeader(keyId: string, sealedLength: number): Buffer {
  const id = Buffer.from(keyId, 'utf8');
  if (id.length < 1 || id.length > 255) throw new Error('A local-blob key id must be 1 to 255 bytes of UTF-8.');
  if (sealedLength > 0xffff) throw new Error('The local credential is too large to seal.');
  const header = Buffer.alloc(2 + id.length + 2);
  header.writeUInt8(LOCAL_BLOB_VERSION, 0);
  header.writeUInt8(id.length, 1);
  id.copy(header, 2);
  header.writeUInt16BE(sealedLength, 2 + id.length);
  return header;
}

function decodeHeader(bytes: Buffer): { header: Buffer; keyId: string; sealedLength: number } {
  if (bytes.length < 1) throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob is truncated.');
  // The version comes first and is read alone: another version may lay out everything after it differently.
  const version = bytes.readUInt8(0);
  if (version !== LOCAL_BLOB_VERSION) {
    throw new FidoError('LOCAL_BLOB_VERSION_UNSUPPORTED', `The blob has format version ${version}; this service reads version ${LOCAL_BLOB_VERSION}.`);
  }
  if (bytes.length < 2) throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob is truncated.');
  const idLength = bytes.readUInt8(1);
  const headerLength = 2 + idLength + 2;
  if (idLength === 0) throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob has an empty key id.');
  if (bytes.length < headerLength) throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob is truncated.');
  const header = bytes.subarray(0, headerLength);
  return {
    header,
    keyId: header.subarray(2, 2 + idLength).toString('utf8'),
    sealedLength: header.readUInt16BE(2 + idLength),
  };
}

/** Key ids are labels, not secrets, but they come from the caller here: quote only a tame one. */
function describeKeyId(keyId: string): string {
  return /^[A-Za-z0-9._:-]{1,64}$/.test(keyId) ? `"${keyId}"` : '(unprintable)';
}

function checkedKey(key: LocalBlobKey): Buffer {
  if (key.key.length !== KEY_BYTES) throw new Error(`Local-blob key "${describeKeyId(key.id)}" must be ${KEY_BYTES} bytes.`);
  return key.key;
}

function decrypt(key: Buffer, header: Buffer, body: Buffer, sealedLength: number): Buffer {
  const nonce = body.subarray(0, NONCE_BYTES);
  const sealed = body.subarray(NONCE_BYTES, NONCE_BYTES + sealedLength);
  const tag = body.subarray(NONCE_BYTES + sealedLength);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(header);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]);
  } catch {
    // GCM says only "unable to authenticate"; nothing more to tell, and nothing about the key.
    throw new FidoError('LOCAL_BLOB_TAMPERED', 'The blob does not authenticate under its key.');
  }
}

function checkExpected(credential: LocalCredential, expected: LocalBlobExpectation): void {
  if (credential.clientId !== expected.clientId) {
    throw new FidoError('LOCAL_BLOB_APPLICATION_MISMATCH', 'The blob belongs to another Client ID than the one calling.');
  }
  if (!sameBase64url(credential.credentialId, expected.credentialId)) {
    throw new FidoError('LOCAL_BLOB_CREDENTIAL_MISMATCH', 'The blob holds another credential id than the assertion\'s id/rawId.');
  }
  if (expected.userHandle !== undefined && !sameBase64url(credential.userHandle, expected.userHandle)) {
    throw new FidoError('LOCAL_BLOB_USER_MISMATCH', 'The blob was issued to another user than the username of these options.');
  }
}

/** Compares the bytes, so two spellings of the same value (non-zero trailing bits) do not differ. */
function sameBase64url(a: string, b: string): boolean {
  const left = decodeBase64url(a);
  const right = decodeBase64url(b);
  return left !== undefined && right !== undefined && left.equals(right);
}

// ----- The compact record inside -----
//
//   u8 flags: bit0 backupEligible, bit1 backupState, bit2 userVerified, bit3 attestationTrusted,
//             bit4 residentKey known, bit5 residentKey value (other bits zero)
//   i32 algorithm | u32 signCount | u48 createdAt | 16 bytes aaguid | u8 attestationType
//   str8 attestationFormat | str8 rpId | str16 clientId | bytes8 userHandle | str16 username
//   bytes16 credentialId | bytes16 publicKey | u8 transport count, then str8 each
// (strN / bytesN: an N-bit big-endian length, then the UTF-8 text / raw bytes.)

const ATTESTATION_TYPES: readonly AttestationType[] = ['none', 'self', 'basic', 'attca', 'anonca', 'uncertain'];
const MAX_CREATED_AT = 2 ** 48 - 1;
const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function encodeCredential(credential: LocalCredential): Buffer {
  const out = new Writer();
  const flags = (credential.backupEligible ? 1 : 0) | (credential.backupState ? 2 : 0)
    | (credential.userVerified ? 4 : 0) | (credential.attestationTrusted ? 8 : 0)
    | (credential.residentKey === null ? 0 : 16) | (credential.residentKey === true ? 32 : 0);
  out.u8(flags);
  out.i32(credential.algorithm);
  out.u32(credential.signCount);
  if (!Number.isSafeInteger(credential.createdAt) || credential.createdAt < 0 || credential.createdAt > MAX_CREATED_AT) {
    throw new Error('createdAt is out of range.');
  }
  out.uint(credential.createdAt, 6);
  if (!AAGUID.test(credential.aaguid)) throw new Error('aaguid must be a lower-case dashed UUID.');
  out.raw(Buffer.from(credential.aaguid.replace(/-/g, ''), 'hex'));
  const typeIndex = ATTESTATION_TYPES.indexOf(credential.attestationType);
  if (typeIndex < 0) throw new Error('Unknown attestation type.');
  out.u8(typeIndex);
  out.bytes(Buffer.from(credential.attestationFormat, 'utf8'), 1);
  out.bytes(Buffer.from(credential.rpId, 'utf8'), 1);
  out.bytes(Buffer.from(credential.clientId, 'utf8'), 2);
  out.bytes(base64urlBytes(credential.userHandle, 'userHandle'), 1);
  out.bytes(Buffer.from(credential.username, 'utf8'), 2);
  out.bytes(base64urlBytes(credential.credentialId, 'credentialId'), 2);
  out.bytes(credential.publicKey, 2);
  if (credential.transports.length > 255) throw new Error('Too many transports.');
  out.u8(credential.transports.length);
  for (const transport of credential.transports) out.bytes(Buffer.from(transport, 'utf8'), 1);
  return out.done();
}

function decodeCredential(plaintext: Buffer): LocalCredential {
  try {
    const input = new Reader(plaintext);
    const flags = input.u8();
    if (flags & ~0x3f || (!(flags & 16) && flags & 32)) throw new RangeError('flags');
    const algorithm = input.i32();
    const signCount = input.u32();
    const createdAt = input.uint(6);
    const aaguid = formatAaguid(input.raw(16));
    const attestationType = ATTESTATION_TYPES[input.u8()];
    if (!attestationType) throw new RangeError('attestation type');
    const credential: LocalCredential = {
      backupEligible: Boolean(flags & 1), backupState: Boolean(flags & 2), userVerified: Boolean(flags & 4),
      attestationTrusted: Boolean(flags & 8), residentKey: flags & 16 ? Boolean(flags & 32) : null,
      algorithm, signCount, createdAt, aaguid, attestationType,
      attestationFormat: input.text(1),
      rpId: input.text(1),
      clientId: input.text(2),
      userHandle: encodeBase64url(input.bytes(1)),
      username: input.text(2),
      credentialId: encodeBase64url(input.bytes(2)),
      publicKey: Buffer.from(input.bytes(2)),
      transports: Array.from({ length: input.u8() }, () => input.text(1)),
    };
    input.end();
    return credential;
  } catch {
    // Authentic but unreadable: only a sealing bug could make this. Say so without echoing content.
    throw new FidoError('LOCAL_BLOB_MALFORMED', 'The blob authenticates but its content is unreadable.');
  }
}

function base64urlBytes(text: string, field: string): Buffer {
  const bytes = decodeBase64url(text);
  if (!bytes) throw new Error(`${field} must be base64url.`);
  return bytes;
}

function formatAaguid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

class Writer {
  private readonly parts: Buffer[] = [];

  u8(value: number): void { this.uint(value, 1); }
  u32(value: number): void { this.uint(value, 4); }

  i32(value: number): void {
    if (!Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) throw new Error('Integer out of range.');
    const part = Buffer.alloc(4);
    part.writeInt32BE(value);
    this.parts.push(part);
  }

  uint(value: number, size: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** (8 * size)) throw new Error('Integer out of range.');
    const part = Buffer.alloc(size);
    part.writeUIntBE(value, 0, size);
    this.parts.push(part);
  }

  raw(bytes: Uint8Array): void { this.parts.push(Buffer.from(bytes)); }

  bytes(bytes: Uint8Array, lengthSize: 1 | 2): void {
    this.uint(bytes.length, lengthSize);
    this.raw(bytes);
  }

  done(): Buffer { return Buffer.concat(this.parts); }
}

class Reader {
  private offset = 0;
  constructor(private readonly input: Buffer) {}

  u8(): number { return this.uint(1); }
  u32(): number { return this.uint(4); }
  i32(): number { return this.take(4).readInt32BE(0); }
  uint(size: number): number { return this.take(size).readUIntBE(0, size); }
  raw(size: number): Buffer { return this.take(size); }
  bytes(lengthSize: 1 | 2): Buffer { return this.take(this.uint(lengthSize)); }

  text(lengthSize: 1 | 2): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes(lengthSize));
  }

  end(): void {
    if (this.offset !== this.input.length) throw new RangeError('trailing bytes');
  }

  private take(size: number): Buffer {
    if (this.offset + size > this.input.length) throw new RangeError('truncated');
    const part = this.input.subarray(this.offset, this.offset + size);
    this.offset += size;
    return part;
  }
}
