// WebAuthn Level 3 §7.2 "Verifying an Authentication Assertion", every step in order. Steps 1-4 happen in
// the browser and HTTP layer; step 5 (allowCredentials) and finding the credential record (step 6, first
// half) are the ceremony's; steps 7-9 and 20 are parseClientData/parseAuthentication. Pure: no I/O, no clock.

import { createHash } from 'node:crypto';
import { check } from '../errors.js';
import { decodeBase64url } from '../util/base64url.js';
import { verifySignature } from './cose.js';
import { isParsableOrigin } from './registration.js';
import type { AuthenticationExpectation, ParsedAuthentication, VerifiedAuthentication } from './types.js';

export function verifyAuthentication(parsed: ParsedAuthentication, expected: AuthenticationExpectation): VerifiedAuthentication {
  const C = parsed.clientData;
  const authData = parsed.authenticatorData;
  const stored = expected.credential;

  // Step 6 (§7.2): when response.userHandle is present (and non-empty) it must be the credential owner's.
  if (parsed.userHandle !== null) {
    const owner = decodeBase64url(stored.userHandle);
    check(owner !== undefined && owner.equals(parsed.userHandle), 'USER_HANDLE_NOT_MATCHED');
  }

  // Step 10 (§7.2): C.type must be "webauthn.get".
  check(C.type === 'webauthn.get', 'INVALID_OPERATION_TYPE', `expected "webauthn.get", got "${C.type.slice(0, 32)}"`);

  // Step 11 (§7.2): C.challenge must equal the base64url challenge issued for this ceremony.
  check(C.challenge === expected.challenge, 'CHALLENGE_NOT_MATCHED');

  // Step 12 (§7.2): C.origin must be an origin the Relying Party expects.
  check(isParsableOrigin(C.origin), 'INVALID_ORIGIN', 'clientDataJSON.origin is not a valid origin');
  check(expected.isAllowedOrigin(C.origin), 'ORIGIN_NOT_MATCHED', `origin ${C.origin.slice(0, 200)} is not allowed`);

  // Step 13 (§7.2): a cross-origin ceremony (crossOrigin true, or a topOrigin) only where the application allows it.
  check(!(C.crossOrigin || C.topOrigin !== undefined) || expected.allowCrossOrigin, 'CROSS_ORIGIN_NOT_ALLOWED',
    'the assertion was made in a cross-origin frame');

  // Step 14 (§7.2): rpIdHash must be SHA-256 of the expected RP ID.
  const rpIdHash = createHash('sha256').update(expected.rpId, 'utf8').digest();
  check(authData.rpIdHash.equals(rpIdHash), 'RPID_HASH_NOT_MATCHED', `rpIdHash is not SHA-256("${expected.rpId}")`);

  // Step 15 (§7.2): the UP flag must be set (required even where the FIDO conformance tool omits it: decisions.md).
  check(authData.flags.up, 'USER_PRESENCE_FLAG_NOT_SET');

  // Step 16 (§7.2): the UV flag must be set when the ceremony requires user verification.
  check(!expected.requireUserVerification || authData.flags.uv, 'USER_VERIFICATION_FLAG_NOT_SET');

  // Step 17 (§7.2): BS may only be set when BE is set.
  check(authData.flags.be || !authData.flags.bs, 'INVALID_BACKUP_STATE_FLAG_SET', 'BS is set but BE is not');

  // Step 18 (§7.2): BE differing from the stored value is reported, never failed (synced passkeys, decisions.md).
  const backupEligibilityChanged = authData.flags.be !== stored.backupEligible;

  // Step 19 (§7.2): extension outputs: none requested that need checking; unknown outputs are accepted.

  // Step 20 (§7.2): hash = SHA-256(clientDataJSON), computed once by parseClientData (C.hash).

  // Step 21 (§7.2): sig must verify over authenticatorData ‖ hash with the stored public key.
  const signed = Buffer.concat([authData.raw, C.hash]);
  check(verifySignature(stored.algorithm, stored.publicKey, signed, parsed.signature), 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');

  // Step 22 (§7.2): if either counter is non-zero, the received one must be greater than the stored one;
  // otherwise the authenticator may be cloned: fail (strict) or accept with a clone warning (warn).
  // Both zero is normal: synced passkeys do not count.
  let cloneWarning = false;
  if ((authData.signCount !== 0 || stored.signCount !== 0) && authData.signCount <= stored.signCount) {
    check(expected.counterPolicy === 'warn', 'SIGNATURE_COUNTER_NOT_INCREASED',
      `received counter ${authData.signCount}, stored ${stored.signCount}`);
    cloneWarning = true;
  }

  // Steps 23-24 (§7.2): no attestation at assertion time; updating the record is the ceremony's job.
  return { signCount: authData.signCount, flags: authData.flags, cloneWarning, backupEligibilityChanged };
}
