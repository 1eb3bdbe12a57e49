// Shapes shared by the verification core. Parsers turn bytes into these; verifiers read only these.
// The core is pure: no I/O, no clock of its own (the ceremony passes `now`), no imports from http/ or stores/.

import type { KeyObject, X509Certificate } from 'node:crypto';
import type { PublicKey } from './cose.js';
import type { MlDsaVerifier } from './ml-dsa.js';

/** A decoded CBOR value. Maps keep their key types (COSE keys use integers), byte strings are Buffers. */
export type CborValue =
  | number
  | bigint
  | string
  | boolean
  | null
  | undefined
  | Buffer
  | CborValue[]
  | Map<CborValue, CborValue>
  | { readonly tag: number; readonly value: CborValue };

// ----- JSON as it arrives (after the HTTP layer checked types and base64url alphabets) -----

export interface RegistrationCredentialJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: {
    readonly clientDataJSON: string;
    readonly attestationObject: string;
    readonly transports?: readonly string[];
  };
  /** Client extension results (the spec's `extensions`). */
  readonly extensions: Readonly<Record<string, unknown>>;
}

export interface AuthenticationCredentialJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: {
    readonly clientDataJSON: string;
    readonly authenticatorData: string;
    readonly signature: string;
    readonly userHandle?: string | null;
  };
  readonly extensions: Readonly<Record<string, unknown>>;
}

// ----- Parsed values -----

export interface CollectedClientData {
  readonly type: string;
  /** base64url text exactly as the client wrote it. */
  readonly challenge: string;
  readonly origin: string;
  readonly crossOrigin: boolean;
  readonly topOrigin: string | undefined;
  readonly tokenBinding: { readonly status: string; readonly id?: string } | undefined;
  /** The raw bytes, and their SHA-256 (computed once, here). */
  readonly raw: Buffer;
  readonly hash: Buffer;
}

export interface AuthenticatorFlags {
  readonly up: boolean;
  readonly uv: boolean;
  readonly be: boolean;
  readonly bs: boolean;
  readonly at: boolean;
  readonly ed: boolean;
}

export interface CredentialPublicKey {
  /** COSE algorithm identifier from the key itself (label 3). */
  readonly alg: number;
  /** The COSE_Key bytes exactly as sent. */
  readonly cose: Buffer;
  /** The decoded COSE_Key map (for formats that compare coordinates, e.g. tpm, fido-u2f). */
  readonly coseMap: Map<CborValue, CborValue>;
  /**
   * The key for node:crypto. Made at the first read and kept (importing costs as much as a signature
   * check, and a `none` registration never needs it); throws USER_PUBLIC_KEY_INVALID_KEY_SPEC should the
   * import ever fail.
   */
  readonly keyObject: KeyObject;
  /** The key signatures are checked with: `keyObject` for a classical key, an MlDsaPublicKey for ML-DSA. */
  readonly key: PublicKey;
}

export interface AttestedCredentialData {
  /** 16 bytes. */
  readonly aaguid: Buffer;
  readonly credentialId: Buffer;
  readonly publicKey: CredentialPublicKey;
}

export interface AuthenticatorData {
  readonly raw: Buffer;
  readonly rpIdHash: Buffer;
  readonly flags: AuthenticatorFlags;
  readonly signCount: number;
  readonly attestedCredentialData: AttestedCredentialData | undefined;
  readonly extensions: Map<CborValue, CborValue> | undefined;
}

export interface AttestationObject {
  readonly fmt: string;
  readonly attStmt: Map<CborValue, CborValue>;
  readonly authData: AuthenticatorData;
}

export interface ParsedRegistration {
  readonly credentialId: Buffer;
  readonly clientData: CollectedClientData;
  readonly attestationObject: AttestationObject;
  readonly transports: readonly string[];
  readonly extensions: Readonly<Record<string, unknown>>;
}

export interface ParsedAuthentication {
  readonly credentialId: Buffer;
  readonly clientData: CollectedClientData;
  readonly authenticatorData: AuthenticatorData;
  readonly signature: Buffer;
  /** null when absent or empty. */
  readonly userHandle: Buffer | null;
  readonly extensions: Readonly<Record<string, unknown>>;
}

// ----- What a ceremony expects, and what verification returns -----

export interface ClientDataExpectation {
  /** Checks ML-DSA signatures (default: node:crypto where the runtime has ML-DSA, else pure JavaScript). */
  readonly mlDsa?: MlDsaVerifier;
  /** base64url challenge as issued. */
  readonly challenge: string;
  /** Decides whether clientData.origin is acceptable (exact match in standard, localOrigins rules in local). */
  readonly isAllowedOrigin: (origin: string) => boolean;
  readonly allowCrossOrigin: boolean;
  /** Top-level origins a cross-origin ceremony may be embedded in (`clientDataJSON.topOrigin`); absent = none. */
  readonly topOrigins?: readonly string[];
  readonly rpId: string;
  readonly requireUserVerification: boolean;
  /**
   * true only for a registration started as a conditional create (automatic upgrade, WebAuthn L3), where
   * the browser may create the credential without a user gesture. Absent or false: UP is required.
   */
  readonly userPresenceOptional?: boolean;
}

export interface RegistrationExpectation extends ClientDataExpectation {
  /** COSE algorithms that were offered in pubKeyCredParams. */
  readonly algorithms: readonly number[];
  readonly trust: TrustEvaluator;
  /** The ceremony's time, for certificate validity. */
  readonly now: Date;
}

export interface VerifiedRegistration {
  readonly credentialId: Buffer;
  readonly publicKey: CredentialPublicKey;
  readonly signCount: number;
  readonly aaguid: string;
  readonly fmt: string;
  readonly attestationType: AttestationType;
  readonly attestationTrusted: boolean;
  /**
   * A trusted attestation proved the AAGUID (a chain to the application's anchors or to the roots of the
   * AAGUID's own metadata statement). False: the AAGUID, and any name found for it, is only a claim.
   */
  readonly aaguidProven: boolean;
  /** Authenticator description from the AAGUID's metadata statement, when known; a display hint unless aaguidProven. */
  readonly authenticatorName: string | null;
  readonly flags: AuthenticatorFlags;
}

export interface StoredCredentialView {
  readonly publicKey: PublicKey;
  readonly algorithm: number;
  readonly signCount: number;
  /** base64url user handle of the owner. */
  readonly userHandle: string;
  readonly backupEligible: boolean;
}

export interface AuthenticationExpectation extends ClientDataExpectation {
  readonly credential: StoredCredentialView;
  readonly counterPolicy: 'strict' | 'warn';
  /** The application's policy on the BE flag (§7.2 step 18); absent (as `any`): no policy. */
  readonly backupEligibility?: 'any' | 'required' | 'forbidden' | undefined;
}

export interface VerifiedAuthentication {
  readonly signCount: number;
  readonly flags: AuthenticatorFlags;
  /** true when the counter did not increase and the `warn` policy accepted it. */
  readonly cloneWarning: boolean;
  /** true when BE differs from the stored value (recorded, not failed: see docs/decisions.md). */
  readonly backupEligibilityChanged: boolean;
}

export type { X509Certificate };

// --- Attestation: what a format establishes (§8), and the trust decision over it (§7.1 steps 23-24) ---

/** The attestation type verification established (WebAuthn L3 §6.5.4), stored with each credential. */
export type AttestationType = 'none' | 'self' | 'basic' | 'attca' | 'anonca' | 'uncertain';

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

export interface TrustInput {
  readonly fmt: string;
  /** Lower-case dashed AAGUID. */
  readonly aaguid: string;
  readonly outcome: AttestationOutcome;
  readonly now: Date;
}

export interface TrustDecision {
  /** The attestation reached a trust anchor (application anchors, metadata roots, format roots, or surrogate basic by metadata). */
  readonly trusted: boolean;
  /**
   * The AAGUID is proven: the chain reached the application's anchors or a root of that AAGUID's own
   * metadata statement. Only a proven AAGUID decides policy (allow and deny lists); format roots and self
   * attestation prove none.
   */
  readonly aaguidProven: boolean;
  /** Authenticator description from the AAGUID's metadata statement, when known; unverified unless aaguidProven. */
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
  /**
   * The AAGUIDs the metadata BLOB reports, at `now`, compromised or revoked, each with the status in force
   * (REFUSED_STATUSES of webauthn/metadata); empty without metadata. The stored credentials of these models
   * are marked after every metadata load (applications/compromised.ts). Optional (additive).
   */
  reportedStatuses?(now: Date): ReadonlyMap<string, string>;
}
