// What a successful result answers beyond the envelope: who signed in or registered, and how (docs/api.md
// "Who and how"). One place builds these fields for both result operations and both variants, so that an
// identity provider reads the same names whichever path answered. Failures never reach this module. Their
// types come from the answers' schemas (schemas/answers.ts), which the OpenAPI document is generated from.

import { bundledCatalog, describeAuthenticator } from '../authenticators/index.js';
import type { IdentityFieldsSchema, RegistrationFieldsSchema } from '../schemas/answers.js';
import type { Shape } from '../schemas/typebox.js';
import type { Attachment } from '../schemas/values.js';
import type { CredentialRecord } from '../stores/types.js';
import type { AuthenticatorFlags } from '../webauthn/types.js';

/** The fields every ok answer of both result operations carries (docs/api.md "Who and how"). */
export type IdentityFields = Shape<typeof IdentityFieldsSchema>;
/** A registration's answer adds what the registration learnt about the credential. */
export type RegistrationFields = Shape<typeof RegistrationFieldsSchema>;
export type { Attachment };

/** What this ceremony's authenticator data said, as the answer reports it. */
export interface CeremonyFacts {
  readonly flags: AuthenticatorFlags;
  readonly signCount: number;
  readonly attachment: Attachment | undefined;
}

/**
 * How strong the sign-in was, in the terms an IdP puts into its tokens (docs/api.md "Sign-in verdict"):
 * `amr` (RFC 8176) says `hwk` for a device-bound credential (BE clear) or `swk` for a synced one, `user`
 * when the user was present (UP), `mfa` when the authenticator verified the user (UV); `acr` is `phrh` only
 * for a device-bound credential whose AAGUID a trusted attestation proved at registration, else `phr`.
 */
export function signInVerdict(
  flags: AuthenticatorFlags,
  aaguidProven: boolean,
): { readonly amr: ('hwk' | 'swk' | 'user' | 'mfa')[]; readonly acr: 'phr' | 'phrh' } {
  const amr: ('hwk' | 'swk' | 'user' | 'mfa')[] = [flags.be ? 'swk' : 'hwk'];
  if (flags.up) amr.push('user');
  if (flags.uv) amr.push('mfa');
  return { amr, acr: !flags.be && aaguidProven ? 'phrh' : 'phr' };
}

/** After a verified authentication: `credential` is the stored record or the opened local blob's view. */
export function authenticationFields(credential: CredentialRecord, facts: CeremonyFacts): IdentityFields {
  // FIDO metadata's name, else the bundled AAGUID lists'; verified only when a trusted attestation proved the AAGUID.
  const authenticator = describeAuthenticator(
    { aaguid: credential.aaguid, metadataName: credential.authenticatorName, proven: credential.aaguidProven === true },
    bundledCatalog(),
  );
  const fields: IdentityFields = {
    username: credential.username,
    userHandle: credential.userHandle,
    credentialId: credential.credentialId,
    userVerified: facts.flags.uv,
    backupEligible: facts.flags.be,
    backupState: facts.flags.bs,
    aaguid: credential.aaguid,
    authenticatorName: authenticator.name,
    authenticatorVerified: authenticator.verified,
    signCount: facts.signCount,
    ...signInVerdict(facts.flags, credential.aaguidProven === true),
  };
  return facts.attachment === undefined ? fields : { ...fields, authenticatorAttachment: facts.attachment };
}

/** After a verified registration: `credential` is the record stored (standard) or sealed (local). */
export function registrationFields(credential: CredentialRecord, facts: CeremonyFacts): RegistrationFields {
  return {
    ...authenticationFields(credential, facts),
    discoverable: credential.residentKey,
    attestationFormat: credential.attestationFormat,
    attestationType: credential.attestationType,
    attestationTrusted: credential.attestationTrusted,
  };
}
