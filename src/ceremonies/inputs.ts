// The four request bodies after http/validation.ts checked them against schemas/requests.ts: every field
// present, typed, bounded, every byte field strict base64url. The ceremonies read only these shapes.

import type { Hint } from '../service-config.js';
import type { AssertionOptionsBody, AttestationOptionsBody } from '../schemas/requests.js';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../webauthn/types.js';
import type { Attachment } from './outcome.js';

export type { AuthenticatorSelection } from '../schemas/requests.js';

/** The body as its schema has it, with `hints` narrowed to the known ones (each once). */
export type AttestationOptionsRequest = Omit<AttestationOptionsBody, 'hints' | 'mediation'> & {
  readonly hints?: readonly Hint[];
  /** `conditional`: an automatic upgrade (conditional create), whose result may lack UP. */
  readonly mediation?: 'conditional';
};
export type AssertionOptionsRequest = Omit<AssertionOptionsBody, 'hints'> & { readonly hints?: readonly Hint[] };

export type Extensions = Readonly<Record<string, unknown>>;

/** A registration credential as WebAuthn's JSON has it, plus the local variant's marker. */
export interface AttestationResultRequest extends RegistrationCredentialJSON {
  /** `extensions.localhost` exactly as sent (undefined when absent): the local variant's marker. */
  readonly localMarker: unknown;
  /** The browser's authenticatorAttachment when it is one WebAuthn defines. */
  readonly attachment?: Attachment;
}

/** An authentication credential as WebAuthn's JSON has it, plus the local variant's marker. */
export interface AssertionResultRequest extends AuthenticationCredentialJSON {
  /** `extensions.localhost` exactly as sent (undefined when absent). */
  readonly localMarker: unknown;
  /** The browser's authenticatorAttachment when it is one WebAuthn defines. */
  readonly attachment?: Attachment;
}

/** POST /api/credentials/list, /delete and /rename, as their schemas (schemas/credentials.ts) have them. */
export type {
  CredentialsDeleteBody as CredentialsDeleteRequest,
  CredentialsListBody as CredentialsListRequest,
  CredentialsRenameBody as CredentialsRenameRequest,
} from '../schemas/credentials.js';
