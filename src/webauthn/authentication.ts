// WebAuthn Level 3 §7.2 "Verifying an Authentication Assertion", every step in order. Steps 1-4 happen in
// the browser and HTTP layer; step 5 (allowCredentials) and finding the credential record (step 6, first
// half) are the ceremony's; steps 7-9 and 20 are parseClientData/parseAuthentication. Pure: no I/O, no clock.

import { check } from '../errors/catalogue.js';
import { decodeBase64url } from '../util/base64url.js';
import { checkAuthenticatorData, checkBackupEligibility, checkClientData } from './ceremony-checks.js';
import { verifySignature } from './cose.js';
import type { AuthenticationExpectation, ParsedAuthentication, VerifiedAuthentication } from './types.js';

export function verifyAuthentication(
  parsed: ParsedAuthentication,
  expected: AuthenticationExpectation,
): VerifiedAuthentication {
  const C = parsed.clientData;
  const authData = parsed.authenticatorData;
  const stored = expected.credential;

  // Step 6 (§7.2): when response.userHandle is present (and non-empty) it must be the credential owner's.
  if (parsed.userHandle !== null) {
    const owner = decodeBase64url(stored.userHandle);
    check(owner?.equals(parsed.userHandle), 'USER_HANDLE_NOT_MATCHED');
  }

  // Steps 10-13 (§7.2): C.type is "webauthn.get", C.challenge the issued one, C.origin one the Relying
  // Party expects, and a cross-origin ceremony only where the application allows it.
  checkClientData(C, expected, 'webauthn.get');

  // Steps 14-17 (§7.2): rpIdHash = SHA-256(RP ID); UP set (always, see docs/decisions.md); UV set when required;
  // BS only with BE.
  checkAuthenticatorData(authData, expected);

  // Step 18 (§7.2): the application's BE policy (`required`/`forbidden`) holds at every sign-in; otherwise BE
  // differing from the stored value is reported, never failed (synced passkeys, docs/decisions.md).
  checkBackupEligibility(expected.backupEligibility, authData.flags.be);
  const backupEligibilityChanged = authData.flags.be !== stored.backupEligible;

  // Step 19 (§7.2): extension outputs: none requested that need checking; unknown outputs are accepted.

  // Step 20 (§7.2): hash = SHA-256(clientDataJSON), computed once by parseClientData (C.hash).

  // Step 21 (§7.2): sig must verify over authenticatorData ‖ hash with the stored public key.
  const signed = Buffer.concat([authData.raw, C.hash]);
  check(
    verifySignature(stored.algorithm, stored.publicKey, signed, parsed.signature, expected.mlDsa),
    'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
  );

  // Step 22 (§7.2): if either counter is non-zero, the received one must be greater than the stored one;
  // otherwise the authenticator may be cloned: fail (strict) or accept with a clone warning (warn).
  // Both zero is normal: synced passkeys do not count.
  let cloneWarning = false;
  if ((authData.signCount !== 0 || stored.signCount !== 0) && authData.signCount <= stored.signCount) {
    check(
      expected.counterPolicy === 'warn',
      'SIGNATURE_COUNTER_NOT_INCREASED',
      `received counter ${authData.signCount}, stored ${stored.signCount}`,
    );
    cloneWarning = true;
  }

  // Steps 23-24 (§7.2): no attestation at assertion time; updating the record is the ceremony's job.
  return { signCount: authData.signCount, flags: authData.flags, cloneWarning, backupEligibilityChanged };
}
