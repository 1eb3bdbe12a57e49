// WebAuthn Level 3 §7.1 "Registering a New Credential", every step in order. Steps 1-4 happen in the
// browser and the HTTP layer; steps 5-6 and 11 are parseClientData, step 12 is parseRegistration.
// This function checks the parsed values against what the ceremony expects. Pure: no I/O, no clock.

import { createHash } from 'node:crypto';
import { FidoError, check } from '../errors.js';
import { checkCredentialIdLength, formatAaguid } from './authenticator-data.js';
import { verifyAttestationStatement } from './attestation/index.js';
import type { ParsedRegistration, RegistrationExpectation, VerifiedRegistration } from './types.js';

/** A syntactically valid origin (scheme:…); anything URL cannot parse is INVALID_ORIGIN, not a mismatch. */
export function isParsableOrigin(origin: string): boolean {
  try {
    new URL(origin);
    return true;
  } catch {
    return false;
  }
}

export function verifyRegistration(parsed: ParsedRegistration, expected: RegistrationExpectation): VerifiedRegistration {
  const C = parsed.clientData;
  const { fmt, attStmt, authData } = parsed.attestationObject;
  const attested = authData.attestedCredentialData;
  // parseRegistration guarantees attested credential data; a hand-built value without it is refused here.
  if (!attested) throw new FidoError('CREDENTIAL_NOT_INCLUDED', 'authenticator data carries no attested credential data');

  // Step 7 (§7.1): C.type must be "webauthn.create".
  check(C.type === 'webauthn.create', 'INVALID_OPERATION_TYPE', `expected "webauthn.create", got "${C.type.slice(0, 32)}"`);

  // Step 8 (§7.1): C.challenge must equal the base64url challenge issued for this ceremony.
  check(C.challenge === expected.challenge, 'CHALLENGE_NOT_MATCHED');

  // Step 9 (§7.1): C.origin must be an origin the Relying Party expects.
  check(isParsableOrigin(C.origin), 'INVALID_ORIGIN', 'clientDataJSON.origin is not a valid origin');
  check(expected.isAllowedOrigin(C.origin), 'ORIGIN_NOT_MATCHED', `origin ${C.origin.slice(0, 200)} is not allowed`);

  // Step 10 (§7.1): a cross-origin ceremony (crossOrigin true, or a topOrigin) only where the application allows it.
  check(!(C.crossOrigin || C.topOrigin !== undefined) || expected.allowCrossOrigin, 'CROSS_ORIGIN_NOT_ALLOWED',
    'the credential was created in a cross-origin frame');

  // Step 11 (§7.1): hash = SHA-256(clientDataJSON), computed once by parseClientData (C.hash).

  // Step 12 (§7.1): CBOR decoding of attestationObject into fmt, authData and attStmt: done by parseRegistration.

  // Step 13 (§7.1): rpIdHash must be SHA-256 of the expected RP ID.
  const rpIdHash = createHash('sha256').update(expected.rpId, 'utf8').digest();
  check(authData.rpIdHash.equals(rpIdHash), 'RPID_HASH_NOT_MATCHED', `rpIdHash is not SHA-256("${expected.rpId}")`);

  // Step 14 (§7.1): the UP flag must be set (always: we do not offer conditional create).
  check(authData.flags.up, 'USER_PRESENCE_FLAG_NOT_SET');

  // Step 15 (§7.1): the UV flag must be set when the ceremony requires user verification.
  check(!expected.requireUserVerification || authData.flags.uv, 'USER_VERIFICATION_FLAG_NOT_SET');

  // Step 16 (§7.1): BS may only be set when BE is set.
  check(authData.flags.be || !authData.flags.bs, 'INVALID_BACKUP_STATE_FLAG_SET', 'BS is set but BE is not');

  // Steps 17-18 (§7.1): BE and BS inform policy only; they are returned in `flags` and stored.

  // Step 19 (§7.1): the credential key's alg must be one that was offered in pubKeyCredParams.
  check(expected.algorithms.includes(attested.publicKey.alg), 'NOT_ALLOWED_COSE_ALGORITHM',
    `algorithm ${attested.publicKey.alg} was not offered`);

  // Step 20 (§7.1): extension outputs. We request none that need checking; unknown outputs are accepted
  // (the authenticator extension map was already checked to be a well-formed CBOR map).

  // Steps 21-22 (§7.1): find the format by an exact match on fmt and run its verification procedure.
  const outcome = verifyAttestationStatement(fmt, {
    attStmt,
    authData,
    credentialKey: attested.publicKey,
    clientDataHash: C.hash,
    now: expected.now,
  });

  // Steps 23-24 (§7.1): trust anchors and trustworthiness, by the application's trust evaluator
  // (throws when its policy refuses the attestation, i.e. step 28's "SHOULD fail" is the policy's choice).
  const aaguid = formatAaguid(attested.aaguid);
  const decision = expected.trust.evaluate({ fmt, aaguid, outcome, now: expected.now });

  // Step 25 (§7.1): the credential id is at most 1023 bytes (and at least 1).
  checkCredentialIdLength(attested.credentialId.length);

  // Steps 26-27 (§7.1): "not yet registered" and storing the credential record are the ceremony's job.
  return {
    credentialId: attested.credentialId,
    publicKey: attested.publicKey,
    signCount: authData.signCount,
    aaguid,
    fmt,
    attestationType: outcome.type,
    attestationTrusted: decision.trusted,
    authenticatorName: decision.authenticatorName,
    flags: authData.flags,
  };
}
