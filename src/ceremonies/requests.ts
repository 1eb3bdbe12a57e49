// The four request bodies after src/http/schemas.ts checked them: every field present, typed, bounded,
// every byte field strict base64url. The ceremonies read only these shapes.

import type { AttestationConveyance, Hint, UserVerification } from '../config.js';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../webauthn/types.js';
import type { Attachment } from './outcome.js';

export type Extensions = Readonly<Record<string, unknown>>;

export interface AuthenticatorSelection {
  readonly authenticatorAttachment?: 'platform' | 'cross-platform';
  readonly requireResidentKey?: boolean;
  readonly residentKey?: 'discouraged' | 'preferred' | 'required';
  readonly userVerification?: UserVerification;
}

export interface AttestationOptionsRequest {
  readonly username: string;
  readonly hints?: readonly Hint[];
  readonly displayName?: string;
  readonly authenticatorSelection?: AuthenticatorSelection;
  readonly attestation?: AttestationConveyance;
  readonly extensions?: Extensions;
  /** `conditional`: an automatic upgrade (conditional create), whose result may lack UP. */
  readonly mediation?: 'conditional';
}

export interface AssertionOptionsRequest {
  readonly username: string;
  readonly hints?: readonly Hint[];
  readonly userVerification?: UserVerification;
  readonly extensions?: Extensions;
}

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
