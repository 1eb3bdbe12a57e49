// The bundled public roots, parsed once. Formats hand theirs to the trust evaluator as `formatRoots`;
// the MDS roots verify FIDO metadata BLOBs unless an application configures its own.

import { X509Certificate } from 'node:crypto';
import { ANDROID_KEY_ROOTS } from './android-key.js';
import { ANDROID_SAFETYNET_ROOTS } from './android-safetynet.js';
import { APPLE_ROOTS } from './apple.js';
import { MDS_ROOTS } from './mds.js';

const parse = (pems: readonly string[]): readonly X509Certificate[] =>
  Object.freeze(pems.map((pem) => new X509Certificate(pem)));

export const ANDROID_KEY_ROOT_CERTIFICATES = parse(ANDROID_KEY_ROOTS);
export const ANDROID_SAFETYNET_ROOT_CERTIFICATES = parse(ANDROID_SAFETYNET_ROOTS);
export const APPLE_ROOT_CERTIFICATES = parse(APPLE_ROOTS);
export const MDS_ROOT_CERTIFICATES = parse(MDS_ROOTS);
