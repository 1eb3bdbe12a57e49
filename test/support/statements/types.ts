// The contract between the soft authenticator and the attestation statement builders (one file per fmt).
import type { KeyObject } from 'node:crypto';
import type { SigningKey, VerifyingKey } from '../ml-dsa-keys.js';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';

export interface StatementInput {
  /** The complete authenticator data the statement attests. */
  readonly authData: Buffer;
  /** SHA-256 of clientDataJSON (or, when a test breaks `signedData`, of other bytes). */
  readonly clientDataHash: Buffer;
  readonly rpIdHash: Buffer;
  readonly aaguid: Buffer;
  readonly credentialId: Buffer;
  /** The new credential's key pair, its COSE algorithm and COSE_Key bytes. */
  readonly credential: {
    readonly alg: number;
    readonly privateKey: SigningKey;
    readonly publicKey: VerifyingKey;
    readonly cose: Buffer;
  };
  readonly options: StatementOptions;
  /** The ceremony time, when the test passes one (formats that carry a timestamp use it, e.g. SafetyNet). */
  readonly now?: Date;
}

export interface StatementOptions {
  /** Full attestation: the chain (leaf first, never the root) and the leaf's private key. */
  readonly attestation?: {
    readonly x5c: readonly Buffer[];
    readonly privateKey: KeyObject;
    /** COSE alg to sign with (default: the one matching the leaf key). */
    readonly alg?: number;
  };
  /** Anything a particular format needs (e.g. tpm manufacturer, android-key fields). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface StatementBuilder {
  readonly fmt: string;
  /** The AAGUID an authenticator of this format uses unless the test sets one (fido-u2f: all zero). */
  readonly defaultAaguid?: Buffer;
  /** COSE algorithms the format can attest credentials of (default: any). */
  readonly credentialAlgorithms?: readonly number[];
  build(input: StatementInput): Map<string, CborEncodable>;
}
