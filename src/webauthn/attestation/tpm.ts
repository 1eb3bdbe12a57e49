// "tpm" attestation (WebAuthn L3 §8.3): a TPM 2.0 certifies the credential key (pubArea) with its
// attestation identity key; certInfo (TPMS_ATTEST) carries the hash of the signed data and the name of
// pubArea, and is signed with the AIK, whose certificate must meet §8.3.1. Structures (TPM 2.0 Part 2):
// tpm-structures.ts; the AIK certificate: tpm-aik.ts.

import { createHash, type X509Certificate } from 'node:crypto';
import { FidoError } from '../../errors/catalogue.js';
import { certificatePublicKey } from '../x509.js';
import { coseAlgorithm, isPostQuantum, keyMatchesAlgorithm, verifySignature } from '../cose.js';
import { readAlg, readSig, readX5c, signedData } from './fields.js';
import { checkAikCertificate } from './tpm-aik.js';
import {
  type CertInfo,
  NAME_HASHES,
  parseCertInfo,
  parsePubArea,
  type PubArea,
  TPM_CURVES,
  TPM_GENERATED_VALUE,
  TPM_ST_ATTEST_CERTIFY,
  tpmError as fail,
} from './tpm-structures.js';
import type { AttestationFormat, AttestationInput, AttestationOutcome } from './types.js';
import type { CborValue } from '../types.js';

function byteString(attStmt: Map<CborValue, CborValue>, key: string): Buffer {
  const value = attStmt.get(key);
  if (!Buffer.isBuffer(value) || value.length === 0)
    throw new FidoError('INVALID_ATTESTATION_FORMAT', `tpm: ${key} must be a non-empty byte string`);
  return value;
}

function unsigned(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/** §8.3 step 3: the key pubArea describes is the credential public key. */
function checkPubAreaKey(pubArea: PubArea, input: AttestationInput): void {
  const mismatch = (what: string) =>
    fail('TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY', what);
  // A TPM key is RSA or ECC: an ML-DSA credential key is never the key pubArea describes.
  if (isPostQuantum(input.credentialKey.alg)) throw mismatch('pubArea describes an RSA or ECC key, not an ML-DSA one');
  const jwk = input.credentialKey.keyObject.export({ format: 'jwk' });
  const b = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');
  if (pubArea.type === 'rsa') {
    if (jwk.kty !== 'RSA') throw mismatch('pubArea holds an RSA key, the credential key is not RSA');
    if (!unsigned(pubArea.modulus).equals(unsigned(b(jwk.n))))
      throw mismatch('pubArea.unique is not the credential key modulus');
    if (BigInt(pubArea.exponent) !== BigInt(`0x${b(jwk.e).toString('hex') || '0'}`))
      throw mismatch('pubArea exponent differs from the credential key');
    return;
  }
  if (jwk.kty !== 'EC') throw mismatch('pubArea holds an ECC key, the credential key is not EC');
  if (TPM_CURVES[pubArea.curve] !== jwk.crv) throw mismatch('pubArea curve differs from the credential key curve');
  if (!unsigned(pubArea.x).equals(unsigned(b(jwk.x))) || !unsigned(pubArea.y).equals(unsigned(b(jwk.y)))) {
    throw mismatch('pubArea.unique is not the credential key point');
  }
}

/** §8.3 step 5: certInfo is a TPM-generated certification of pubArea over the signed data. */
function checkCertInfo(
  certInfo: CertInfo,
  pubArea: PubArea,
  pubAreaBytes: Buffer,
  alg: number,
  input: AttestationInput,
): void {
  if (certInfo.magic !== TPM_GENERATED_VALUE)
    throw fail('TPM_ATTESTATION_CERTINFO_MAGIC_NOT_MATCHED', `magic is 0x${certInfo.magic.toString(16)}`);
  if (certInfo.type !== TPM_ST_ATTEST_CERTIFY)
    throw fail('TPM_ATTESTATION_CERTINFO_TYPE_NOT_MATCHED', `type is 0x${certInfo.type.toString(16)}`);
  const entry = coseAlgorithm(alg);
  const hash = entry && 'hash' in entry ? entry.hash : undefined;
  if (!hash) throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `alg ${alg} has no hash for extraData`);
  const expected = createHash(hash).update(signedData(input.authData.raw, input.clientDataHash)).digest();
  if (!certInfo.extraData.equals(expected))
    throw fail(
      'TPM_ATTESTATION_CERTINFO_EXTRADATA_NOT_MATCHED',
      'extraData is not the hash of authenticatorData ‖ clientDataHash',
    );
  // TPM name = nameAlg (2 bytes) ‖ H_nameAlg(pubArea), with pubArea's own nameAlg (§8.3: "the name
  // of pubArea, computed using the procedure specified in [TPMv2-Part1] section 16 using the nameAlg
  // in the pubArea"). A name hashed with another algorithm is not pubArea's name, whatever it hashes.
  if (certInfo.attestedName.length < 2) throw fail('TPM_ATTESTATION_DATA_INVALID', 'attested.name is too short');
  const nameAlg = certInfo.attestedName.readUInt16BE(0);
  const nameHash = NAME_HASHES[nameAlg];
  if (!nameHash)
    throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `attested.name uses hash algorithm 0x${nameAlg.toString(16)}`);
  if (!NAME_HASHES[pubArea.nameAlg])
    throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `pubArea.nameAlg is 0x${pubArea.nameAlg.toString(16)}`);
  if (nameAlg !== pubArea.nameAlg) {
    throw fail(
      'TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED',
      `attested.name uses hash algorithm 0x${nameAlg.toString(16)}, pubArea.nameAlg is 0x${pubArea.nameAlg.toString(16)}`,
    );
  }
  const name = Buffer.concat([
    certInfo.attestedName.subarray(0, 2),
    createHash(nameHash).update(pubAreaBytes).digest(),
  ]);
  if (!name.equals(certInfo.attestedName))
    throw fail('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', 'attested.name is not the name of pubArea');
}

export const tpm: AttestationFormat = {
  fmt: 'tpm',
  verify(input): AttestationOutcome {
    // Step 1 (§8.3): the attStmt fields.
    const ver = input.attStmt.get('ver');
    if (ver !== '2.0') throw fail('TPM_ATTESTATION_DATA_INVALID', 'ver must be "2.0"');
    const alg = readAlg('tpm', input.attStmt);
    if (!coseAlgorithm(alg)) throw new FidoError('INVALID_COSE_ALGORITHM', `tpm: alg ${alg} is not supported`);
    const sig = readSig('tpm', input.attStmt);
    const x5c = readX5c('tpm', input.attStmt);
    const certInfoBytes = byteString(input.attStmt, 'certInfo');
    const pubAreaBytes = byteString(input.attStmt, 'pubArea');
    const pubArea = parsePubArea(pubAreaBytes);
    const certInfo = parseCertInfo(certInfoBytes);
    // Step 3: pubArea is the credential key.
    checkPubAreaKey(pubArea, input);
    // Step 5: certInfo certifies pubArea over authenticatorData ‖ clientDataHash.
    checkCertInfo(certInfo, pubArea, pubAreaBytes, alg, input);
    // Step 6: sig over certInfo with the AIK, whose certificate meets §8.3.1.
    const [aik] = x5c as [X509Certificate, ...X509Certificate[]];
    const aikKey = certificatePublicKey(aik, 'x5c[0] (the AIK certificate)');
    if (!keyMatchesAlgorithm(alg, aikKey))
      throw fail('TPM_ATTESTATION_ALGORITHM_NOT_MATCHED', `the AIK key cannot sign with alg ${alg}`);
    if (!verifySignature(alg, aikKey, certInfoBytes, sig)) {
      throw new FidoError(
        'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
        'tpm: sig over certInfo does not verify with the AIK certificate',
      );
    }
    checkAikCertificate(aik, input.authData.attestedCredentialData?.aaguid ?? Buffer.alloc(16));
    return { type: 'attca', trustPath: x5c };
  },
};
