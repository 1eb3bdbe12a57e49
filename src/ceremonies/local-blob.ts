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
import { FidoError } from '../errors/catalogue.js';
import type { LocalBlobKey } from '../service-config.js';
import type { CredentialRecord } from '../stores/types.js';
import { decodeBase64url, encodeBase64url } from '../util/base64url.js';
import { decodeCredential, encodeCredential, type LocalCredential } from './local-record.js';

export type { LocalBlobKey };

export type { LocalCredential };

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
    throw new FidoError(
      'LOCAL_BLOB_MALFORMED',
      body.length < NONCE_BYTES + sealedLength + TAG_BYTES ? 'The blob is truncated.' : 'The blob has trailing bytes.',
    );
  }
  const plaintext = decrypt(checkedKey(key), header, body, sealedLength);
  const credential = decodeCredential(plaintext);
  checkExpected(credential, expected);
  return credential;
}

/** The same facts as a store row, so the assertion can reuse the standard variant's code paths. */
export function localCredentialFromRecord(record: CredentialRecord, rpId = 'localhost'): LocalCredential {
  return {
    clientId: record.clientId,
    rpId,
    userHandle: record.userHandle,
    username: record.username,
    credentialId: record.credentialId,
    publicKey: record.publicKey,
    algorithm: record.algorithm,
    signCount: record.signCount,
    transports: record.transports,
    aaguid: record.aaguid,
    attestationFormat: record.attestationFormat,
    attestationType: record.attestationType,
    attestationTrusted: record.attestationTrusted,
    ...(record.aaguidProven === true && { aaguidProven: true }),
    backupEligible: record.backupEligible,
    backupState: record.backupState,
    userVerified: record.userVerified,
    residentKey: record.residentKey,
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
    throw new FidoError(
      'LOCAL_BLOB_NOT_STRING',
      blob === true
        ? 'extensions.localhost is true: send true only with the attestation result; send the kept string with the assertion result.'
        : `extensions.localhost is ${Array.isArray(blob) ? 'an array' : typeof blob}, not a string.`,
    );
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
    throw new FidoError(
      'LOCAL_BLOB_VERSION_UNSUPPORTED',
      `The blob has format version ${version}; this service reads version ${LOCAL_BLOB_VERSION}.`,
    );
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
  if (key.key.length !== KEY_BYTES)
    throw new Error(`Local-blob key "${describeKeyId(key.id)}" must be ${KEY_BYTES} bytes.`);
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
    throw new FidoError(
      'LOCAL_BLOB_APPLICATION_MISMATCH',
      'The blob belongs to another Client ID than the one calling.',
    );
  }
  if (!sameBase64url(credential.credentialId, expected.credentialId)) {
    throw new FidoError(
      'LOCAL_BLOB_CREDENTIAL_MISMATCH',
      "The blob holds another credential id than the assertion's id/rawId.",
    );
  }
  if (expected.userHandle !== undefined && !sameBase64url(credential.userHandle, expected.userHandle)) {
    throw new FidoError(
      'LOCAL_BLOB_USER_MISMATCH',
      'The blob was issued to another user than the username of these options.',
    );
  }
}

/** Compares the bytes, so two spellings of the same value (non-zero trailing bits) do not differ. */
function sameBase64url(a: string, b: string): boolean {
  const left = decodeBase64url(a);
  const right = decodeBase64url(b);
  return left !== undefined && right !== undefined && left.equals(right);
}
