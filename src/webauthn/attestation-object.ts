// The attestation object (WebAuthn L3 §6.5): a CBOR map {fmt: text, attStmt: map, authData: bytes}.
// §7.1 step 12: decode it and the authenticator data inside.

import { FidoError } from '../errors/catalogue.js';
import { decodeBase64url } from '../util/base64url.js';
import { parseAuthenticatorData } from './authenticator-data.js';
import { CborError, decodeCbor } from './cbor.js';
import type { AttestationObject, CborValue } from './types.js';

function invalid(detail: string): FidoError {
  return new FidoError('INVALID_FORMAT_ATTESTATION_OBJECT', detail);
}

/** Parses `response.attestationObject` (base64url). Throws INVALID_FORMAT_ATTESTATION_OBJECT or an authData error. */
export function parseAttestationObject(attestationObject: string): AttestationObject {
  const bytes = typeof attestationObject === 'string' ? decodeBase64url(attestationObject) : undefined;
  if (!bytes) throw invalid('attestationObject is not base64url');
  if (bytes.length === 0) throw invalid('attestationObject is empty');
  let decoded: CborValue;
  try {
    decoded = decodeCbor(bytes);
  } catch (err) {
    if (err instanceof CborError) throw invalid(`attestationObject is not valid CBOR: ${err.message}`);
    throw err;
  }
  if (!(decoded instanceof Map)) throw invalid('attestationObject must be a CBOR map');
  const fmt = decoded.get('fmt');
  const attStmt = decoded.get('attStmt');
  const authData = decoded.get('authData');
  if (fmt === undefined) throw invalid('fmt is missing');
  if (typeof fmt !== 'string') throw invalid('fmt must be a text string');
  if (attStmt === undefined) throw invalid('attStmt is missing');
  if (!(attStmt instanceof Map)) throw invalid('attStmt must be a map');
  if (authData === undefined) throw invalid('authData is missing');
  if (!Buffer.isBuffer(authData)) throw invalid('authData must be a byte string');
  if (authData.length === 0) throw invalid('authData is empty');
  return { fmt, attStmt, authData: parseAuthenticatorData(authData) };
}
