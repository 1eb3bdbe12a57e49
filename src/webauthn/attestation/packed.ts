// "packed" attestation (WebAuthn L3 §8.2): self attestation (no x5c, signed by the credential key) or
// full attestation (x5c, signed by the attestation certificate's key, whose certificate must meet §8.2.1).
// Chain building and trust anchors are the trust evaluator's job (trust.ts), not this file's.

import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../../errors/catalogue.js';
import { Asn1Error, decodeOctetString, readDer } from '../asn1.js';
import { certificateParts, decodeName, certificatePublicKey } from '../x509.js';
import { claimsCa } from '../certificates.js';
import { coseAlgorithm, keyMatchesAlgorithm, verifySignature } from '../cose.js';
import { readAlg, readOptionalX5c, readSig, signedData } from './fields.js';
import type { AttestationFormat, AttestationInput, AttestationOutcome } from './types.js';

/** id-fido-gen-ce-aaguid: the AAGUID of the authenticator model, as an OCTET STRING. */
export const OID_FIDO_GEN_CE_AAGUID = '1.3.6.1.4.1.45724.1.1.4';
const OID = { C: '2.5.4.6', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3' } as const;

function certificateError(detail: string): FidoError {
  return new FidoError('ATTESTATION_CERTIFICATE_ERROR', `packed: ${detail}`);
}

/**
 * §8.2.1: version 3; subject C (ISO 3166 alpha-2), O, OU = "Authenticator Attestation", CN; not a CA;
 * the AAGUID extension, when present, not critical and equal to authData's AAGUID.
 */
export function checkPackedCertificate(cert: X509Certificate, aaguid: Buffer): void {
  let parts: ReturnType<typeof certificateParts>;
  let subject: Map<string, string>;
  try {
    parts = certificateParts(cert);
    subject = new Map(decodeName(parts.subject, { lenientLengths: true }).map((e) => [e.oid, e.value] as const));
  } catch (err) {
    if (err instanceof Asn1Error) throw certificateError(`attestation certificate cannot be read: ${err.message}`);
    throw err;
  }
  if (parts.version !== 3) throw certificateError(`attestation certificate is version ${parts.version}, not 3`);
  const c = subject.get(OID.C);
  if (!c || !/^[A-Z]{2}$/.test(c)) throw certificateError('subject C must be an ISO 3166 country code');
  if (!subject.get(OID.O)) throw certificateError('subject O (vendor) is missing');
  if (subject.get(OID.OU) !== 'Authenticator Attestation')
    throw certificateError('subject OU must be "Authenticator Attestation"');
  if (!subject.get(OID.CN)) throw certificateError('subject CN is missing');
  // basicConstraints as stated: X509Certificate.ca is false for a CA:true leaf without keyCertSign.
  if (claimsCa(cert))
    throw certificateError('the attestation certificate must not be a CA (basic constraints CA must be false)');

  const matches = parts.extensions.filter((e) => e.oid === OID_FIDO_GEN_CE_AAGUID);
  if (matches.length > 1) throw certificateError('the AAGUID extension appears more than once');
  const [extension] = matches;
  if (extension) {
    if (extension.critical) throw certificateError('the AAGUID extension must not be critical');
    let certAaguid: Buffer;
    try {
      certAaguid = decodeOctetString(readDer(extension.value));
    } catch (err) {
      if (err instanceof Asn1Error) throw certificateError(`the AAGUID extension is malformed: ${err.message}`);
      throw err;
    }
    if (!certAaguid.equals(aaguid)) {
      throw new FidoError(
        'PACKED_ATTESTATION_AAGUID_NOT_MATCHED',
        'the AAGUID in the attestation certificate differs from authenticator data',
      );
    }
  }
}

function verifyFull(input: AttestationInput, alg: number, sig: Buffer, x5c: X509Certificate[]): AttestationOutcome {
  const [leaf] = x5c as [X509Certificate, ...X509Certificate[]];
  if (!coseAlgorithm(alg)) throw new FidoError('INVALID_COSE_ALGORITHM', `packed: alg ${alg} is not supported`);
  const leafKey = certificatePublicKey(leaf, 'packed: x5c[0]');
  if (!keyMatchesAlgorithm(alg, leafKey)) {
    throw new FidoError(
      'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
      `packed: the attestation certificate's key cannot sign with alg ${alg}`,
    );
  }
  if (!verifySignature(alg, leafKey, signedData(input.authData.raw, input.clientDataHash), sig)) {
    throw new FidoError(
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
      'packed: sig does not verify with the attestation certificate',
    );
  }
  const aaguid = input.authData.attestedCredentialData?.aaguid ?? Buffer.alloc(16);
  checkPackedCertificate(leaf, aaguid);
  return { type: 'basic', trustPath: x5c };
}

function verifySelf(input: AttestationInput, alg: number, sig: Buffer): AttestationOutcome {
  const key = input.credentialKey;
  if (alg !== key.alg) {
    throw new FidoError(
      'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
      `packed: alg ${alg} differs from the credential key's alg ${key.alg}`,
    );
  }
  if (!verifySignature(alg, key.key, signedData(input.authData.raw, input.clientDataHash), sig, input.mlDsa)) {
    throw new FidoError(
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
      'packed: self attestation sig does not verify with the credential key',
    );
  }
  return { type: 'self', trustPath: [] };
}

export const packed: AttestationFormat = {
  fmt: 'packed',
  verify(input) {
    const alg = readAlg('packed', input.attStmt);
    const sig = readSig('packed', input.attStmt);
    const x5c = readOptionalX5c('packed', input.attStmt);
    return x5c ? verifyFull(input, alg, sig, x5c) : verifySelf(input, alg, sig);
  },
};
