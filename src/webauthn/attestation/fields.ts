// Readers for the attStmt fields several formats share (alg, sig, x5c), each failing with
// INVALID_ATTESTATION_FORMAT and a detail naming the field, so every format reports shape errors alike.
// An x5c entry of the right shape that is no readable certificate fails as every chain does:
// CERTIFICATE_UNREADABLE (parseCertificate, which also refuses a key that cannot be decoded).

import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../../errors/catalogue.js';
import { parseCertificate } from '../x509.js';
import type { CborValue } from '../types.js';

/** The most certificates an x5c may carry: a leaf and a few intermediates; more is hostile. */
const MAX_X5C = 8;

function invalid(fmt: string, detail: string): FidoError {
  return new FidoError('INVALID_ATTESTATION_FORMAT', `${fmt}: ${detail}`);
}

export function readAlg(fmt: string, attStmt: Map<CborValue, CborValue>): number {
  const alg = attStmt.get('alg');
  if (alg === undefined) throw invalid(fmt, 'alg is missing');
  if (typeof alg !== 'number' || !Number.isInteger(alg)) throw invalid(fmt, 'alg must be an integer');
  return alg;
}

export function readSig(fmt: string, attStmt: Map<CborValue, CborValue>): Buffer {
  const sig = attStmt.get('sig');
  if (sig === undefined) throw invalid(fmt, 'sig is missing');
  if (!Buffer.isBuffer(sig)) throw invalid(fmt, 'sig must be a byte string');
  if (sig.length === 0) throw invalid(fmt, 'sig is empty');
  return sig;
}

/**
 * x5c when present: a non-empty array of DER certificates, leaf first, each with a decodable public key
 * (so `certificatePublicKey` on them cannot fail later). undefined when absent.
 */
export function readOptionalX5c(fmt: string, attStmt: Map<CborValue, CborValue>): X509Certificate[] | undefined {
  const x5c = attStmt.get('x5c');
  if (x5c === undefined) return undefined;
  if (!Array.isArray(x5c)) throw invalid(fmt, 'x5c must be an array');
  if (x5c.length === 0) throw invalid(fmt, 'x5c is empty');
  if (x5c.length > MAX_X5C) throw invalid(fmt, `x5c holds more than ${MAX_X5C} certificates`);
  return x5c.map((item, i) => {
    if (!Buffer.isBuffer(item) || item.length === 0) throw invalid(fmt, `x5c[${i}] must be a non-empty byte string`);
    return parseCertificate(item, `${fmt}: x5c[${i}]`);
  });
}

export function readX5c(fmt: string, attStmt: Map<CborValue, CborValue>): X509Certificate[] {
  const x5c = readOptionalX5c(fmt, attStmt);
  if (!x5c) throw invalid(fmt, 'x5c is missing');
  return x5c;
}

/** The exact bytes every §8 format signs: authenticatorData ‖ clientDataHash. */
export function signedData(authDataRaw: Buffer, clientDataHash: Buffer): Buffer {
  return Buffer.concat([authDataRaw, clientDataHash]);
}
