// WebAuthn Level 3 §7.1 "Registering a New Credential", every step in order. Steps 1-4 happen in the
// browser and the HTTP layer; steps 5-6 and 11 are parseClientData, step 12 is parseRegistration.
// This function checks the parsed values against what the ceremony expects. Pure: no I/O, no clock.

import { FidoError, check } from '../errors/catalogue.js';
import { checkCredentialIdLength, formatAaguid } from './authenticator-data.js';
import { verifyAttestationStatement } from './attestation/index.js';
import { checkAuthenticatorData, checkClientData } from './ceremony-checks.js';
import type { ParsedRegistration, RegistrationExpectation, VerifiedRegistration } from './types.js';

export function verifyRegistration(
  parsed: ParsedRegistration,
  expected: RegistrationExpectation,
): VerifiedRegistration {
  const C = parsed.clientData;
  const { fmt, attStmt, authData } = parsed.attestationObject;
  const attested = authData.attestedCredentialData;
  // parseRegistration guarantees attested credential data; a hand-built value without it is refused here.
  if (!attested)
    throw new FidoError('CREDENTIAL_NOT_INCLUDED', 'authenticator data carries no attested credential data');

  // Steps 7-10 (§7.1): C.type is "webauthn.create", C.challenge the issued one, C.origin one the Relying
  // Party expects, and a cross-origin ceremony only where the application allows it.
  checkClientData(C, expected, 'webauthn.create');

  // Step 11 (§7.1): hash = SHA-256(clientDataJSON), computed once by parseClientData (C.hash).

  // Step 12 (§7.1): CBOR decoding of attestationObject into fmt, authData and attStmt: done by parseRegistration.

  // Steps 13-16 (§7.1): rpIdHash = SHA-256(RP ID); UP set; UV set when required; BS only with BE.
  checkAuthenticatorData(authData, expected);

  // Steps 17-18 (§7.1): BE and BS inform policy only; they are returned in `flags` and stored.

  // Step 19 (§7.1): the credential key's alg must be one that was offered in pubKeyCredParams.
  check(
    expected.algorithms.includes(attested.publicKey.alg),
    'NOT_ALLOWED_COSE_ALGORITHM',
    `algorithm ${attested.publicKey.alg} was not offered`,
  );

  // Step 20 (§7.1): extension outputs. We request none that need checking; unknown outputs are accepted
  // (the authenticator extension map was already checked to be a well-formed CBOR map).

  // Steps 21-22 (§7.1): find the format by an exact match on fmt and run its verification procedure.
  const outcome = verifyAttestationStatement(fmt, {
    attStmt,
    authData,
    credentialKey: attested.publicKey,
    clientDataHash: C.hash,
    now: expected.now,
    mlDsa: expected.mlDsa,
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
    aaguidProven: decision.aaguidProven,
    authenticatorName: decision.authenticatorName,
    flags: authData.flags,
  };
}
