// "android-safetynet" attestation (WebAuthn L3 §8.5): a SafetyNet attestation JWS whose nonce binds it to
// this ceremony, signed by a certificate issued to attest.android.com. Google retired the SafetyNet API,
// but authenticators that produced it can still be registered, and the FIDO conformance tool tests it.

import { createHash, type X509Certificate } from 'node:crypto';
import { FidoError, type ErrorName } from '../../errors/catalogue.js';
import { decodeCompactJws, headerCertificates, isSupportedJwsAlgorithm, verifyJwsSignature } from '../metadata/blob.js';
import { certificatePublicKey } from '../x509.js';
import { ANDROID_SAFETYNET_ROOT_CERTIFICATES } from '../roots/index.js';
import { signedData } from './fields.js';
import type { AttestationFormat, AttestationOutcome } from './types.js';

export const SAFETYNET_HOSTNAME = 'attest.android.com';
/** How old a SafetyNet response may be (the FIDO conformance tool refuses one older than a minute). */
export const SAFETYNET_MAX_AGE_MS = 60_000;

function fail(code: ErrorName, detail: string): FidoError {
  return new FidoError(code, `android-safetynet: ${detail}`);
}

const dataInvalid = (detail: string) => fail('ANDROID_SAFETYNET_ATTESTATION_DATA_INVALID', detail);

export const androidSafetynet: AttestationFormat = {
  fmt: 'android-safetynet',
  verify(input): AttestationOutcome {
    // Step 1 (§8.5): ver is a non-empty version string; response is the JWS bytes.
    const ver = input.attStmt.get('ver');
    if (typeof ver !== 'string' || ver.length === 0)
      throw fail('ANDROID_SAFETYNET_ATTESTATION_VERSION_EMPTY', 'ver must be a non-empty string');
    const response = input.attStmt.get('response');
    if (!Buffer.isBuffer(response) || response.length === 0)
      throw dataInvalid('response must be a non-empty byte string');
    const jws = decodeCompactJws(response.toString('utf8'), dataInvalid);
    const payload = jws.payload;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw dataInvalid('the JWS payload is not a JSON object');
    const claims = payload as Record<string, unknown>;

    // Step 3: the response is genuine: signed by a certificate issued to attest.android.com.
    const alg = jws.header.alg;
    if (!isSupportedJwsAlgorithm(alg))
      throw fail('ANDROID_SAFETYNET_ATTESTATION_NOT_SUPPORTED_SIGNATURE_ALGORITHM', `JWS alg ${JSON.stringify(alg)}`);
    if (!Array.isArray(jws.header.x5c) || jws.header.x5c.length === 0)
      throw fail('ANDROID_SAFETYNET_ATTESTATION_CERTIFICATE_NOT_INCLUDED', 'the JWS header has no x5c');
    const x5c = headerCertificates(jws.header, dataInvalid);
    const [leaf] = x5c as [X509Certificate, ...X509Certificate[]];
    if (leaf.checkHost(SAFETYNET_HOSTNAME, { wildcards: false }) === undefined) {
      throw fail(
        'ANDROID_SAFETYNET_ATTESTATION_HOSTNAME_NOT_MATCHED',
        `the signing certificate is not issued to ${SAFETYNET_HOSTNAME}`,
      );
    }
    if (!verifyJwsSignature(alg, certificatePublicKey(leaf, 'the JWS x5c[0]'), jws.signingInput, jws.signature)) {
      throw new FidoError(
        'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
        'android-safetynet: the JWS signature does not verify with its certificate',
      );
    }

    // Step 2: nonce = base64(SHA-256(authenticatorData ‖ clientDataHash)).
    const expectedNonce = createHash('sha256')
      .update(signedData(input.authData.raw, input.clientDataHash))
      .digest('base64');
    if (claims.nonce !== expectedNonce)
      throw fail(
        'ANDROID_SAFETYNET_ATTESTATION_NONCE_NOT_MATCHED',
        'nonce is not the hash of authenticatorData ‖ clientDataHash',
      );

    // Step 4: the device passed the compatibility test.
    if (claims.ctsProfileMatch !== true)
      throw fail('ANDROID_SAFETYNET_ATTESTATION_CTS_PROFILE_MATCH_NOT_SET', 'ctsProfileMatch is not true');

    // The response is fresh: not from the future, not older than the window (ceremony clock).
    const timestamp = claims.timestampMs;
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp))
      throw fail('ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID', 'timestampMs is missing');
    const now = input.now.getTime();
    if (timestamp > now) throw fail('ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID', 'timestampMs is in the future');
    if (now - timestamp > SAFETYNET_MAX_AGE_MS)
      throw fail(
        'ANDROID_SAFETYNET_ATTESTATION_TIMESTAMP_INVALID',
        `timestampMs is older than ${SAFETYNET_MAX_AGE_MS / 1000} s`,
      );

    return { type: 'basic', trustPath: x5c, formatRoots: ANDROID_SAFETYNET_ROOT_CERTIFICATES };
  },
};
