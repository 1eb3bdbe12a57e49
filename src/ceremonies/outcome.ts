// What a successful result answers beyond the envelope: who signed in or registered, and how (docs/api.md
// "Who and how"). One place builds these fields for both result operations and both variants, so that an
// identity provider reads the same names whichever path answered. Failures never reach this module.

import type { CredentialRecord } from '../stores/types.js';
import type { AuthenticatorFlags } from '../webauthn/types.js';

/** What the browser reported as `authenticatorAttachment` (unsigned: a hint for display, never for policy). */
export type Attachment = 'platform' | 'cross-platform';

/** The fields every ok answer of both result operations carries. */
export interface IdentityFields {
  /** The owner's full `<user>#<domain>` (from the credential, never from the request). */
  readonly username: string;
  /** base64url user handle (user.id). */
  readonly userHandle: string;
  /** base64url credential id. */
  readonly credentialId: string;
  readonly userVerified: boolean;
  /** BE and BS of this ceremony's authenticator data: a synced passkey has both. */
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  /** Lower-case dashed UUID; all zeros when the authenticator gives none. */
  readonly aaguid: string;
  /** The authenticator's name when known, else null. */
  readonly authenticatorName: string | null;
  /** The counter this ceremony's authenticator data carried. */
  readonly signCount: number;
  /** Only when the browser sent it. */
  readonly authenticatorAttachment?: Attachment;
}

/** A registration's answer adds what the registration learnt about the credential. */
export interface RegistrationFields extends IdentityFields {
  /** credProps.rk as the client reported it: whether the credential is discoverable; null when unknown. */
  readonly discoverable: boolean | null;
  readonly attestationFormat: string;
  readonly attestationType: CredentialRecord['attestationType'];
  /** Whether the attestation chained to a trust anchor the application accepts. */
  readonly attestationTrusted: boolean;
}

/** What this ceremony's authenticator data said, as the answer reports it. */
export interface CeremonyFacts {
  readonly flags: AuthenticatorFlags;
  readonly signCount: number;
  readonly attachment: Attachment | undefined;
}

/** After a verified authentication: `credential` is the stored record or the opened local blob's view. */
export function authenticationFields(credential: CredentialRecord, facts: CeremonyFacts): IdentityFields {
  const fields: IdentityFields = {
    username: credential.username,
    userHandle: credential.userHandle,
    credentialId: credential.credentialId,
    userVerified: facts.flags.uv,
    backupEligible: facts.flags.be,
    backupState: facts.flags.bs,
    aaguid: credential.aaguid,
    authenticatorName: credential.authenticatorName ?? null,
    signCount: facts.signCount,
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
