// Authenticator data (WebAuthn L3 §6.1): rpIdHash(32) ‖ flags(1) ‖ signCount(4) ‖ [attested credential
// data] ‖ [extensions]. The AT and ED flags must agree with what follows, and nothing may trail.

import { FidoError } from '../errors/catalogue.js';
import { CborError, decodeCborPrefix } from './cbor.js';
import { COSE_KEY_CBOR_LIMITS, importCoseKeyMap } from './cose-key.js';
import type { AttestedCredentialData, AuthenticatorData, AuthenticatorFlags, CborValue } from './types.js';

const HEADER_LENGTH = 37;
const AAGUID_LENGTH = 16;
const MAX_CREDENTIAL_ID_LENGTH = 1023;

export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_BE = 0x08;
export const FLAG_BS = 0x10;
export const FLAG_AT = 0x40;
export const FLAG_ED = 0x80;

function invalid(detail: string): FidoError {
  return new FidoError('INVALID_AUTHENTICATOR_DATA', detail);
}

export function parseFlags(byte: number): AuthenticatorFlags {
  return {
    up: (byte & FLAG_UP) !== 0,
    uv: (byte & FLAG_UV) !== 0,
    be: (byte & FLAG_BE) !== 0,
    bs: (byte & FLAG_BS) !== 0,
    at: (byte & FLAG_AT) !== 0,
    ed: (byte & FLAG_ED) !== 0,
  };
}

/** Checks a credential id length (§7.1 step 25): 1 to 1023 bytes. */
export function checkCredentialIdLength(length: number): void {
  if (length < 1 || length > MAX_CREDENTIAL_ID_LENGTH) {
    throw new FidoError(
      'INVALID_CREDENTIAL_ID_LENGTH',
      `credential id is ${length} bytes; it must be 1 to ${MAX_CREDENTIAL_ID_LENGTH}`,
    );
  }
}

function parseAttestedCredentialData(raw: Buffer, start: number): { data: AttestedCredentialData; end: number } {
  if (raw.length < start + AAGUID_LENGTH + 2)
    throw invalid('attested credential data is truncated (AAGUID and credential id length)');
  const aaguid = Buffer.from(raw.subarray(start, start + AAGUID_LENGTH));
  const idLength = raw.readUInt16BE(start + AAGUID_LENGTH);
  checkCredentialIdLength(idLength);
  const idStart = start + AAGUID_LENGTH + 2;
  if (raw.length < idStart + idLength) throw invalid('attested credential data is truncated (credential id)');
  const credentialId = Buffer.from(raw.subarray(idStart, idStart + idLength));
  const keyStart = idStart + idLength;
  if (keyStart === raw.length) throw invalid('attested credential data has no credential public key');
  let decoded: { value: CborValue; end: number };
  try {
    decoded = decodeCborPrefix(raw, keyStart, COSE_KEY_CBOR_LIMITS);
  } catch (err) {
    if (err instanceof CborError)
      throw new FidoError(
        'USER_PUBLIC_KEY_INVALID_KEY_SPEC',
        `credential public key is not valid CBOR: ${err.message}`,
      );
    throw err;
  }
  if (!(decoded.value instanceof Map))
    throw new FidoError('USER_PUBLIC_KEY_INVALID_KEY_SPEC', 'credential public key must be a CBOR map');
  const publicKey = importCoseKeyMap(decoded.value, Buffer.from(raw.subarray(keyStart, decoded.end)));
  return { data: { aaguid, credentialId, publicKey }, end: decoded.end };
}

function parseExtensions(raw: Buffer, start: number): { extensions: Map<CborValue, CborValue>; end: number } {
  if (start === raw.length) throw invalid('ED flag set but no extension data follows');
  let decoded: { value: CborValue; end: number };
  try {
    decoded = decodeCborPrefix(raw, start);
  } catch (err) {
    if (err instanceof CborError)
      throw new FidoError('INVALID_EXTENSION_DATA', `extension data is not valid CBOR: ${err.message}`);
    throw err;
  }
  if (!(decoded.value instanceof Map))
    throw new FidoError('INVALID_EXTENSION_DATA', 'extension data must be a CBOR map');
  return { extensions: decoded.value, end: decoded.end };
}

/**
 * Parses authenticator data. Throws INVALID_AUTHENTICATOR_DATA (truncated, trailing bytes, flags that
 * contradict the content), CREDENTIAL_NOT_INCLUDED (AT set, nothing follows), INVALID_CREDENTIAL_ID_LENGTH,
 * INVALID_EXTENSION_DATA, or the COSE key errors of importCosePublicKey (the key is checked, not yet imported).
 */
export function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  const raw = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (raw.length < HEADER_LENGTH)
    throw invalid(`authenticator data is ${raw.length} bytes; at least ${HEADER_LENGTH} are required`);
  const rpIdHash = Buffer.from(raw.subarray(0, 32));
  const flags = parseFlags(raw[32]!);
  const signCount = raw.readUInt32BE(33);
  let pos = HEADER_LENGTH;

  let attestedCredentialData: AttestedCredentialData | undefined;
  if (flags.at) {
    if (pos === raw.length)
      throw new FidoError('CREDENTIAL_NOT_INCLUDED', 'AT flag set but no attested credential data follows');
    const parsed = parseAttestedCredentialData(raw, pos);
    attestedCredentialData = parsed.data;
    pos = parsed.end;
  }

  let extensions: Map<CborValue, CborValue> | undefined;
  if (flags.ed) {
    const parsed = parseExtensions(raw, pos);
    extensions = parsed.extensions;
    pos = parsed.end;
  }

  if (pos !== raw.length) {
    const why = !flags.at && !flags.ed ? ' (AT and ED flags are clear)' : '';
    throw invalid(`${raw.length - pos} unexpected trailing bytes${why}`);
  }
  return { raw, rpIdHash, flags, signCount, attestedCredentialData, extensions };
}

/** The AAGUID as lower-case dashed text (the form metadata and storage use). */
export function formatAaguid(aaguid: Uint8Array): string {
  const hex = Buffer.from(aaguid).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
