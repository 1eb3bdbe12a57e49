// The compact binary record sealed inside the local variant's blob (local-blob.ts does the sealing). The
// blob travels on every sign-in, so the record is bytes, not JSON:
//
//   u8 flags: bit0 backupEligible, bit1 backupState, bit2 userVerified, bit3 attestationTrusted,
//             bit4 residentKey known, bit5 residentKey value, bit6 aaguidProven (other bits zero)
//   i32 algorithm | u32 signCount | u48 createdAt | 16 bytes aaguid | u8 attestationType
//   str8 attestationFormat | str8 rpId | str16 clientId | bytes8 userHandle | str16 username
//   bytes16 credentialId | bytes16 publicKey | u8 transport count, then str8 each
// (strN / bytesN: an N-bit big-endian length, then the UTF-8 text / raw bytes.)

import { FidoError } from '../errors/catalogue.js';
import type { CredentialRecord } from '../stores/types.js';
import type { AttestationType } from '../webauthn/types.js';
import { decodeBase64url, encodeBase64url } from '../util/base64url.js';

/**
 * What the standard variant would store for a credential (the same fields as CredentialRecord, so the two
 * cannot drift apart), sealed into the `localhost` blob instead. `signCount` is the counter at registration,
 * the only one the service ever learns; `rpId` is always `localhost`, kept so the blob is self-describing.
 */
export type LocalCredential = Pick<
  CredentialRecord,
  | 'clientId'
  | 'userHandle'
  | 'username'
  | 'credentialId'
  | 'publicKey'
  | 'algorithm'
  | 'signCount'
  | 'transports'
  | 'aaguid'
  | 'attestationFormat'
  | 'attestationType'
  | 'attestationTrusted'
  | 'aaguidProven'
  | 'backupEligible'
  | 'backupState'
  | 'userVerified'
  | 'residentKey'
  | 'createdAt'
> & { readonly rpId: string };

const ATTESTATION_TYPES: readonly AttestationType[] = ['none', 'self', 'basic', 'attca', 'anonca', 'uncertain'];
const MAX_CREATED_AT = 2 ** 48 - 1;
const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCredential(credential: LocalCredential): Buffer {
  const out = new Writer();
  const flags =
    (credential.backupEligible ? 1 : 0) |
    (credential.backupState ? 2 : 0) |
    (credential.userVerified ? 4 : 0) |
    (credential.attestationTrusted ? 8 : 0) |
    (credential.residentKey === null ? 0 : 16) |
    (credential.residentKey === true ? 32 : 0) |
    (credential.aaguidProven === true ? 64 : 0);
  out.u8(flags);
  out.i32(credential.algorithm);
  out.u32(credential.signCount);
  if (
    !Number.isSafeInteger(credential.createdAt) ||
    credential.createdAt < 0 ||
    credential.createdAt > MAX_CREATED_AT
  ) {
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

export function decodeCredential(plaintext: Buffer): LocalCredential {
  try {
    const input = new Reader(plaintext);
    const flags = input.u8();
    if (flags & ~0x7f || (!(flags & 16) && flags & 32)) throw new RangeError('flags');
    const algorithm = input.i32();
    const signCount = input.u32();
    const createdAt = input.uint(6);
    const aaguid = formatAaguid(input.raw(16));
    const attestationType = ATTESTATION_TYPES[input.u8()];
    if (!attestationType) throw new RangeError('attestation type');
    const credential: LocalCredential = {
      backupEligible: Boolean(flags & 1),
      backupState: Boolean(flags & 2),
      userVerified: Boolean(flags & 4),
      attestationTrusted: Boolean(flags & 8),
      ...(flags & 64 ? { aaguidProven: true } : {}),
      residentKey: flags & 16 ? Boolean(flags & 32) : null,
      algorithm,
      signCount,
      createdAt,
      aaguid,
      attestationType,
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

  u8(value: number): void {
    this.uint(value, 1);
  }
  u32(value: number): void {
    this.uint(value, 4);
  }

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

  raw(bytes: Uint8Array): void {
    this.parts.push(Buffer.from(bytes));
  }

  bytes(bytes: Uint8Array, lengthSize: 1 | 2): void {
    this.uint(bytes.length, lengthSize);
    this.raw(bytes);
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

class Reader {
  private offset = 0;
  constructor(private readonly input: Buffer) {}

  u8(): number {
    return this.uint(1);
  }
  u32(): number {
    return this.uint(4);
  }
  i32(): number {
    return this.take(4).readInt32BE(0);
  }
  uint(size: number): number {
    return this.take(size).readUIntBE(0, size);
  }
  raw(size: number): Buffer {
    return this.take(size);
  }
  bytes(lengthSize: 1 | 2): Buffer {
    return this.take(this.uint(lengthSize));
  }

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
