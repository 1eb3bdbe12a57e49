// The checks WebAuthn L3 §7.1 (registration) and §7.2 (authentication) make alike, under other step
// numbers: the client data against the ceremony (§7.1 steps 7-10 = §7.2 steps 10-13) and the authenticator
// data's RP ID hash and flags (§7.1 steps 13-16 = §7.2 steps 14-17), and the application's policy on the
// BE flag (§7.1 step 17 = §7.2 step 18). One copy, so both ceremonies agree.

import { createHash } from 'node:crypto';
import type { BackupEligibilityPolicy } from '../service-config.js';
import { check, FidoError } from '../errors/catalogue.js';
import type { AuthenticatorData, ClientDataExpectation, CollectedClientData } from './types.js';

/** A syntactically valid origin (scheme:…); anything URL cannot parse is INVALID_ORIGIN, not a mismatch. */
export function isParsableOrigin(origin: string): boolean {
  try {
    new URL(origin);
    return true;
  } catch {
    return false;
  }
}

/** C.type, C.challenge, C.origin, token binding and cross-origin use, in the order both ceremonies check them. */
export function checkClientData(
  C: CollectedClientData,
  expected: ClientDataExpectation,
  type: 'webauthn.create' | 'webauthn.get',
): void {
  // §7.1 step 7 / §7.2 step 10: C.type names this ceremony.
  check(C.type === type, 'INVALID_OPERATION_TYPE', `expected "${type}", got "${C.type.slice(0, 32)}"`);

  // §7.1 step 8 / §7.2 step 11: C.challenge equals the base64url challenge issued for this ceremony.
  check(C.challenge === expected.challenge, 'CHALLENGE_NOT_MATCHED');

  // §7.1 step 9 / §7.2 step 12: C.origin is an origin the Relying Party expects.
  check(isParsableOrigin(C.origin), 'INVALID_ORIGIN', 'clientDataJSON.origin is not a valid origin');
  check(expected.isAllowedOrigin(C.origin), 'ORIGIN_NOT_MATCHED', `origin ${C.origin.slice(0, 200)} is not allowed`);

  // Token binding (Level 2 §7.1 step 10 / §7.2 step 14; reserved in Level 3): this service never sees a
  // bound TLS connection, so a `present` status cannot match it. Every other status means "not used".
  check(
    C.tokenBinding?.status !== 'present',
    'TOKEN_BINDING_INFO_NOT_MATCHED',
    'tokenBinding.status is "present", but this service supports no token binding',
  );

  // §7.1 step 10 / §7.2 step 13: a cross-origin ceremony (crossOrigin true, or a topOrigin) only where the
  // application allows it, and only embedded in a top-level page it expects. A cross-origin ceremony
  // without topOrigin (a Level 2 client) cannot show where it was embedded, so it fails as well.
  const crossOrigin = C.crossOrigin || C.topOrigin !== undefined;
  if (!crossOrigin) return;
  check(
    expected.allowCrossOrigin,
    'CROSS_ORIGIN_NOT_ALLOWED',
    `the ${type === 'webauthn.create' ? 'credential was created' : 'assertion was made'} in a cross-origin frame`,
  );
  check(
    C.topOrigin !== undefined && (expected.topOrigins ?? []).includes(C.topOrigin),
    'TOP_ORIGIN_NOT_MATCHED',
    C.topOrigin === undefined
      ? 'clientDataJSON.crossOrigin is true but it names no topOrigin'
      : `topOrigin ${C.topOrigin.slice(0, 200)} is not one of the application's topOrigins`,
  );
}

/** rpIdHash, then the UP, UV and BS/BE flags, in the order both ceremonies check them. */
export function checkAuthenticatorData(authData: AuthenticatorData, expected: ClientDataExpectation): void {
  // §7.1 step 13 / §7.2 step 14: rpIdHash is SHA-256 of the expected RP ID.
  const rpIdHash = createHash('sha256').update(expected.rpId, 'utf8').digest();
  check(authData.rpIdHash.equals(rpIdHash), 'RPID_HASH_NOT_MATCHED', `rpIdHash is not SHA-256("${expected.rpId}")`);

  // §7.1 step 14 / §7.2 step 15: UP is set (required even where the FIDO conformance tool omits it:
  // docs/decisions.md), except in the result of a conditional create, where WebAuthn L3 lets it be clear.
  check(authData.flags.up || expected.userPresenceOptional === true, 'USER_PRESENCE_FLAG_NOT_SET');

  // §7.1 step 15 / §7.2 step 16: UV is set when the ceremony requires user verification.
  check(!expected.requireUserVerification || authData.flags.uv, 'USER_VERIFICATION_FLAG_NOT_SET');

  // §7.1 step 16 / §7.2 step 17: BS may only be set when BE is set.
  check(authData.flags.be || !authData.flags.bs, 'INVALID_BACKUP_STATE_FLAG_SET', 'BS is set but BE is not');
}

/**
 * The application's `backupEligibility` policy on this ceremony's BE flag, at registration and at every
 * sign-in alike: a credential whose BE contradicts `required` or `forbidden` is refused, whenever it says so.
 * `any` and absent (the schema's default, src/schemas/applications.ts) ask nothing.
 */
export function checkBackupEligibility(policy: BackupEligibilityPolicy | undefined, backupEligible: boolean): void {
  if (policy === 'required' && !backupEligible) throw new FidoError('BACKUP_ELIGIBILITY_REQUIRED');
  if (policy === 'forbidden' && backupEligible) throw new FidoError('BACKUP_ELIGIBILITY_NOT_ALLOWED');
}
