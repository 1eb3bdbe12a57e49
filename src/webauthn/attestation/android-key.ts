// "android-key" attestation (WebAuthn L3 §8.4): the Android keystore signs with the credential key itself
// and certifies it with a chain whose leaf carries the KeyDescription extension (Android Keystore key
// attestation schema). Chains end at Google's hardware attestation roots, which factory-provisioned
// devices send and remotely provisioned (RKP) devices do not: the bundled roots cover both.

import type { X509Certificate } from 'node:crypto';
import { FidoError, type ErrorName } from '../../errors/catalogue.js';
import {
  Asn1Error,
  children,
  decodeInteger,
  decodeOctetString,
  expectUniversal,
  isContext,
  readDer,
  sequenceOf,
  TAG,
  type Asn1Node,
} from '../asn1.js';
import { findExtension, certificatePublicKey } from '../x509.js';
import { coseAlgorithm, keyMatchesAlgorithm, sameKey, verifySignature } from '../cose.js';
import { ANDROID_KEY_ROOT_CERTIFICATES } from '../roots/index.js';
import { readAlg, readSig, readX5c, signedData } from './fields.js';
import type { AttestationFormat, AttestationOutcome } from './types.js';

/** The Android key attestation extension (KeyDescription). */
export const OID_ANDROID_KEY_DESCRIPTION = '1.3.6.1.4.1.11129.2.1.17';

/** AuthorizationList tags (Keymaster tag numbers) §8.4 looks at. */
const TAG_PURPOSE = 1;
const TAG_ALL_APPLICATIONS = 600;
const TAG_ORIGIN = 702;
const KM_PURPOSE_SIGN = 2n;
const KM_ORIGIN_GENERATED = 0n;

function fail(code: ErrorName, detail: string): FidoError {
  return new FidoError(code, `android-key: ${detail}`);
}

export interface AuthorizationList {
  readonly purpose: readonly bigint[] | undefined;
  readonly allApplications: boolean;
  readonly origin: bigint | undefined;
}

export interface KeyDescription {
  readonly attestationChallenge: Buffer;
  readonly softwareEnforced: AuthorizationList;
  readonly teeEnforced: AuthorizationList;
}

function readAuthorizationList(node: Asn1Node | undefined): AuthorizationList {
  let purpose: bigint[] | undefined;
  let allApplications = false;
  let origin: bigint | undefined;
  for (const field of sequenceOf(node, 'AuthorizationList')) {
    // Every field is [tag] EXPLICIT; fields this service does not check are skipped (newer schema versions add some).
    if (field.tagClass !== 'context' || !field.constructed)
      throw new Asn1Error('AuthorizationList field is not an explicit context tag');
    const [inner] = children(field);
    if (isContext(field, TAG_PURPOSE))
      purpose = children(expectUniversal(inner, TAG.SET, 'purpose SET')).map((n) => decodeInteger(n));
    else if (isContext(field, TAG_ALL_APPLICATIONS)) allApplications = true;
    else if (isContext(field, TAG_ORIGIN)) origin = decodeInteger(inner);
  }
  return { purpose, allApplications, origin };
}

/** KeyDescription ::= SEQUENCE { attestationVersion, attestationSecurityLevel, keymasterVersion, keymasterSecurityLevel, attestationChallenge, uniqueId, softwareEnforced, teeEnforced } */
export function parseKeyDescription(der: Buffer): KeyDescription {
  const fields = sequenceOf(readDer(der), 'KeyDescription');
  if (fields.length < 8) throw new Asn1Error('KeyDescription has too few fields');
  decodeInteger(fields[0]); // attestationVersion
  decodeInteger(fields[1], TAG.ENUMERATED); // attestationSecurityLevel
  decodeInteger(fields[2]); // keymasterVersion
  decodeInteger(fields[3], TAG.ENUMERATED); // keymasterSecurityLevel
  const attestationChallenge = decodeOctetString(fields[4]);
  decodeOctetString(fields[5]); // uniqueId
  return {
    attestationChallenge,
    softwareEnforced: readAuthorizationList(fields[6]),
    teeEnforced: readAuthorizationList(fields[7]),
  };
}

function keyDescriptionOf(leaf: X509Certificate): KeyDescription {
  let extension: { critical: boolean; value: Buffer } | undefined;
  try {
    extension = findExtension(leaf, OID_ANDROID_KEY_DESCRIPTION);
  } catch (err) {
    if (err instanceof Asn1Error)
      throw fail(
        'ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL',
        `the attestation certificate cannot be read: ${err.message}`,
      );
    throw err;
  }
  if (!extension)
    throw fail(
      'ANDROID_KEY_ATTESTATION_DATA_NOT_FOUND',
      'x5c[0] has no key description extension (1.3.6.1.4.1.11129.2.1.17)',
    );
  try {
    return parseKeyDescription(extension.value);
  } catch (err) {
    if (err instanceof Asn1Error) throw fail('ANDROID_KEY_ATTESTATION_DATA_DECODING_FAIL', err.message);
    throw err;
  }
}

export const androidKey: AttestationFormat = {
  fmt: 'android-key',
  verify(input): AttestationOutcome {
    const alg = readAlg('android-key', input.attStmt);
    const sig = readSig('android-key', input.attStmt);
    const x5c = readX5c('android-key', input.attStmt);
    const [leaf] = x5c as [X509Certificate, ...X509Certificate[]];
    const leafKey = certificatePublicKey(leaf, 'x5c[0]');
    if (!coseAlgorithm(alg)) throw new FidoError('INVALID_COSE_ALGORITHM', `android-key: alg ${alg} is not supported`);
    if (!keyMatchesAlgorithm(alg, leafKey))
      throw fail(
        'ANDROID_KEY_ATTESTATION_ALGORITHM_NOT_MATCHED',
        `the attestation certificate key cannot sign with alg ${alg}`,
      );
    // Step 2 (§8.4): sig over authenticatorData ‖ clientDataHash with the key of x5c[0].
    if (!verifySignature(alg, leafKey, signedData(input.authData.raw, input.clientDataHash), sig)) {
      throw new FidoError(
        'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
        'android-key: sig does not verify with the attestation certificate',
      );
    }
    // Step 3: the certified key is the credential key.
    if (!sameKey(leafKey, input.credentialKey.key)) {
      throw fail(
        'ANDROID_KEY_ATTESTATION_PUBLIC_KEY_NOT_MATCHED',
        'x5c[0] certifies another key than the credential public key',
      );
    }
    // Step 4: the key description binds the key to this ceremony and to this RP only.
    const description = keyDescriptionOf(leaf);
    if (!description.attestationChallenge.equals(input.clientDataHash)) {
      throw fail(
        'ANDROID_KEY_ATTESTATION_ATTESTATION_CHALLENGE_NOT_MATCH_TO_CLIENT_DATA_HASH',
        'attestationChallenge is not the clientDataHash',
      );
    }
    const { softwareEnforced: sw, teeEnforced: tee } = description;
    if (sw.allApplications || tee.allApplications) {
      throw fail(
        'ANDROID_KEY_ATTESTATION_ATTESTATION_ALL_APPLICATION_SET',
        'allApplications is present: the key is not scoped to the RP ID',
      );
    }
    // The union of both lists (the default policy accepts keys whose properties software enforces).
    const origin = tee.origin ?? sw.origin;
    if (origin !== KM_ORIGIN_GENERATED)
      throw fail(
        'ANDROID_KEY_ATTESTATION_ORIGIN_NOT_GENERATED',
        `origin is ${origin ?? 'absent'}, not KM_ORIGIN_GENERATED`,
      );
    const purposes = [...(tee.purpose ?? []), ...(sw.purpose ?? [])];
    if (purposes.length === 0 || purposes.some((p) => p !== KM_PURPOSE_SIGN)) {
      throw fail(
        'ANDROID_KEY_ATTESTATION_PURPOSE_NOT_SIGN',
        `purpose is [${purposes.join(', ')}], not exactly KM_PURPOSE_SIGN`,
      );
    }
    return { type: 'basic', trustPath: x5c, formatRoots: ANDROID_KEY_ROOT_CERTIFICATES };
  },
};
