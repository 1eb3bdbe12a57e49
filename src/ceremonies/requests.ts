// The four request bodies after src/http/schemas.ts checked them: every field present, typed, bounded,
// every byte field strict base64url. The ceremonies read only these shapes.

import type { AttestationConveyance, UserVerification } from '../config.js';

export type Extensions = Readonly<Record<string, unknown>>;

export interface AuthenticatorSelection {
  readonly authenticatorAttachment?: 'platform' | 'cross-platform';
  readonly requireResidentKey?: boolean;
  readonly residentKey?: 'discouraged' | 'preferred' | 'required';
  readonly userVerification?: UserVerification;
}

export interface AttestationOptionsRequest {
  readonly username: string;
  readonly displayName?: string;
  readonly authenticatorSelection?: AuthenticatorSelection;
  readonly attestation?: AttestationConveyance;
  readonly extensions?: Extensions;
}

export interface AssertionOptionsRequest {
  readonly username: string;
  readonly userVerification?: UserVerification;
  readonly extensions?: Extensions;
}

export interface AttestationResultRequest {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: {
    readonly clientDataJSON: string;
    readonly attestationObject: string;
    readonly transports?: readonly string[];
  };
  /** The spec's `extensions`; if absent, `clientExtensionResults` or `getClientExtensionResults`; else {}. */
  readonly extensions: Extensions;
  /** `extensions.localhost` exactly as sent (undefined when absent): the local variant's marker. */
  readonly localMarker: unknown;
}

export interface AssertionResultRequest {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: {
    readonly clientDataJSON: string;
    readonly authenticatorData: string;
    readonly signature: string;
    readonly userHandle?: string | null;
  };
  readonly extensions: Extensions;
  /** `extensions.localhost` exactly as sent (undefined when absent). */
  readonly localMarker: unknown;
}
