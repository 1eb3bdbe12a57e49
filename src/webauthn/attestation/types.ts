// The contract between registration verification and the attestation statement formats (WebAuthn L3 §8).
// One file per format (file name = fmt string) exports an `AttestationFormat`; index.ts is the one table.

import type { MlDsaVerifier } from '../ml-dsa.js';
import type { AttestationOutcome, AuthenticatorData, CborValue, CredentialPublicKey } from '../types.js';

// What a format establishes and the trust decision over it are core values (../types.ts), named here too.
export type { AttestationOutcome, AttestationType, TrustDecision, TrustEvaluator, TrustInput } from '../types.js';

export interface AttestationInput {
  readonly attStmt: Map<CborValue, CborValue>;
  readonly authData: AuthenticatorData;
  /** The attested credential key (authData.attestedCredentialData is present when a format runs). */
  readonly credentialKey: CredentialPublicKey;
  readonly clientDataHash: Buffer;
  /** The ceremony's time (formats with timestamps, certificate checks). */
  readonly now: Date;
  /** Checks ML-DSA signatures (default: node:crypto where the runtime has ML-DSA, else pure JavaScript). */
  readonly mlDsa?: MlDsaVerifier;
}

export interface AttestationFormat {
  readonly fmt: string;
  /** Verifies the statement (its own section of §8); throws FidoError with the precise name on failure. */
  verify(input: AttestationInput): AttestationOutcome;
}
