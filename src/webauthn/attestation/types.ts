// The contract between registration verification and the attestation statement formats (WebAuthn L3 §8).
// One file per format (file name = fmt string) exports an `AttestationFormat`; index.ts is the one table.

import type { X509Certificate } from 'node:crypto';
import type { AttestationType } from '../../stores/types.js';
import type { AuthenticatorData, CborValue, CredentialPublicKey } from '../types.js';

export interface AttestationInput {
  readonly attStmt: Map<CborValue, CborValue>;
  readonly authData: AuthenticatorData;
  /** The attested credential key (authData.attestedCredentialData is present when a format runs). */
  readonly credentialKey: CredentialPublicKey;
  readonly clientDataHash: Buffer;
  /** The ceremony's time (formats with timestamps, certificate checks). */
  readonly now: Date;
}

export interface AttestationOutcome {
  readonly type: AttestationType;
  /** Leaf first. Empty for none and self attestation. */
  readonly trustPath: readonly X509Certificate[];
  /**
   * Roots this format always trusts for its own statements (e.g. Apple's WebAuthn root), in addition to
   * the application's anchors; empty for most formats.
   */
  readonly formatRoots?: readonly X509Certificate[];
}

export interface AttestationFormat {
  readonly fmt: string;
  /** Verifies the statement (its own section of §8); throws FidoError with the precise name on failure. */
  verify(input: AttestationInput): AttestationOutcome;
}

export interface TrustInput {
  readonly fmt: string;
  /** Lower-case dashed AAGUID. */
  readonly aaguid: string;
  readonly outcome: AttestationOutcome;
  readonly now: Date;
}

export interface TrustDecision {
  /** The path chained to a trust anchor (application anchors, metadata roots or format roots). */
  readonly trusted: boolean;
  /** Authenticator description from metadata, when known. */
  readonly authenticatorName: string | null;
}

/**
 * WebAuthn L3 §7.1 steps 23-24: decides whether an attestation is acceptable for an application.
 * Throws FidoError (ATTESTATION_NOT_TRUSTED, CERTIFICATE_PATH_VALIDATION_FAIL, …) when policy refuses it.
 */
export interface TrustEvaluator {
  evaluate(input: TrustInput): TrustDecision;
  /**
   * §7.2 policy hook, called by the assertion ceremony before it accepts a stored credential: throws
   * AUTHENTICATOR_STATUS_NOT_ACCEPTED when the application enforces metadata status at authentication and
   * the credential's authenticator model is now reported compromised or revoked. Optional (additive).
   */
  checkAuthentication?(input: { readonly aaguid: string; readonly now: Date }): void;
}
