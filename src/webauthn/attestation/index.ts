// THE table of attestation statement formats (WebAuthn L3 §7.1 step 21: a case-sensitive match on fmt).
// Adding a format = one file exporting an AttestationFormat (file name = fmt string) + one line here.

import { FidoError } from '../../errors/catalogue.js';
import { androidKey } from './android-key.js';
import { androidSafetynet } from './android-safetynet.js';
import { apple } from './apple.js';
import { fidoU2f } from './fido-u2f.js';
import { none } from './none.js';
import { packed } from './packed.js';
import { tpm } from './tpm.js';
import type { AttestationFormat, AttestationInput, AttestationOutcome } from './types.js';

const FORMATS: ReadonlyMap<string, AttestationFormat> = new Map(
  [none, packed, fidoU2f, tpm, androidKey, androidSafetynet, apple].map((format) => [format.fmt, format]),
);

export function supportedAttestationFormats(): string[] {
  return [...FORMATS.keys()];
}

/** §7.1 steps 21-22: find the verifier for `fmt` (unknown → UNSUPPORTED_ATTESTATION_FORMAT) and run it. */
export function verifyAttestationStatement(fmt: string, input: AttestationInput): AttestationOutcome {
  const format = FORMATS.get(fmt);
  if (!format)
    throw new FidoError('UNSUPPORTED_ATTESTATION_FORMAT', `attestation format "${fmt.slice(0, 64)}" is not supported`);
  return format.verify(input);
}
