// "apple" anonymous attestation (WebAuthn L3 §8.8): Apple's anonymization CA issues a certificate for
// the credential key itself, carrying the hash of this ceremony's signed data as a nonce extension.
// There is no signature in attStmt: the certificate is the attestation. Chains end at Apple's WebAuthn root.

import { createHash, type X509Certificate } from 'node:crypto';
import { FidoError, type ErrorName } from '../../errors/catalogue.js';
import { Asn1Error, children, decodeOctetString, isContext, readDer, sequenceOf } from '../asn1.js';
import { sameKey } from '../cose.js';
import { findExtension, certificatePublicKey } from '../x509.js';
import { APPLE_ROOT_CERTIFICATES } from '../roots/index.js';
import { readX5c, signedData } from './fields.js';
import type { AttestationFormat, AttestationOutcome } from './types.js';

/** Apple's nonce extension: SEQUENCE { [1] EXPLICIT OCTET STRING nonce }. */
export const OID_APPLE_NONCE = '1.2.840.113635.100.8.2';

function fail(code: ErrorName, detail: string): FidoError {
  return new FidoError(code, `apple: ${detail}`);
}

function nonceOf(credCert: X509Certificate): Buffer {
  let extension: { value: Buffer } | undefined;
  try {
    extension = findExtension(credCert, OID_APPLE_NONCE);
  } catch (err) {
    if (err instanceof Asn1Error) throw fail('APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL', err.message);
    throw err;
  }
  if (!extension)
    throw fail('APPLE_ANONYMOUS_ATTESTATION_DATA_NOT_FOUND', `x5c[0] has no nonce extension (${OID_APPLE_NONCE})`);
  try {
    const [tagged, ...rest] = sequenceOf(readDer(extension.value), 'nonce extension');
    if (!tagged || rest.length > 0 || !isContext(tagged, 1) || !tagged.constructed)
      throw new Asn1Error('expected SEQUENCE { [1] nonce }');
    const [octets, ...more] = children(tagged);
    if (more.length > 0) throw new Asn1Error('[1] holds more than the nonce');
    return decodeOctetString(octets);
  } catch (err) {
    if (err instanceof Asn1Error) throw fail('APPLE_ANONYMOUS_ATTESTATION_DATA_DECODING_FAIL', err.message);
    throw err;
  }
}

export const apple: AttestationFormat = {
  fmt: 'apple',
  verify(input): AttestationOutcome {
    const x5c = readX5c('apple', input.attStmt);
    const [credCert] = x5c as [X509Certificate, ...X509Certificate[]];
    // Steps 2-4 (§8.8): nonce = SHA-256(authenticatorData ‖ clientDataHash) is in credCert's extension.
    const expected = createHash('sha256').update(signedData(input.authData.raw, input.clientDataHash)).digest();
    if (!nonceOf(credCert).equals(expected))
      throw fail(
        'APPLE_ANONYMOUS_ATTESTATION_NONCE_NOT_MATCHED',
        'the nonce is not the hash of authenticatorData ‖ clientDataHash',
      );
    // Step 5: credCert certifies the credential public key.
    if (!sameKey(certificatePublicKey(credCert, 'x5c[0]'), input.credentialKey.key)) {
      throw fail(
        'APPLE_ANONYMOUS_ATTESTATION_PUBLIC_KEY_NOT_MATCHED',
        'x5c[0] certifies another key than the credential public key',
      );
    }
    return { type: 'anonca', trustPath: x5c, formatRoots: APPLE_ROOT_CERTIFICATES };
  },
};
