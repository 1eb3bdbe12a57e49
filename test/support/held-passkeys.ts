// Passkeys another system registered: a key pair an authenticator holds, with the user handle and counter the
// old system gave it, as a SoftCredential of a SoftAuthenticator (so that it signs in like the user's own
// device) and as the parts an export of that system carries (COSE key, SubjectPublicKeyInfo).
import { KeyObject, randomBytes } from 'node:crypto';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { coseKeyMapFromKeyObject } from './cose-keys.js';
import { generateKeyPairFor, SoftAuthenticator, type SoftCredential } from './soft-authenticator.js';

export interface HeldPasskey {
  readonly authenticator: SoftAuthenticator;
  readonly credential: SoftCredential;
  /** base64url of the credential id. */
  readonly credentialId: string;
  /** base64url of the user handle the authenticator holds. */
  readonly userHandle: string;
  /** The COSE_Key bytes. */
  readonly cose: Buffer;
  /** DER SubjectPublicKeyInfo (classical algorithms only; undefined for ML-DSA). */
  readonly spki: Buffer | undefined;
}

export interface HeldOptions {
  readonly alg: number;
  readonly rpId: string;
  readonly origin: string;
  readonly userHandle?: Buffer;
  readonly credentialId?: Buffer;
  /** The counter the old system stored (the authenticator's is the same). */
  readonly signCount?: number;
}

export function heldPasskey(options: HeldOptions): HeldPasskey {
  const { privateKey, publicKey } = generateKeyPairFor(options.alg);
  const cose = encodeCbor(coseKeyMapFromKeyObject(options.alg, publicKey));
  const id = options.credentialId ?? randomBytes(32);
  const userHandle = options.userHandle ?? randomBytes(16);
  const credential: SoftCredential = {
    id,
    rpId: options.rpId,
    userHandle,
    alg: options.alg,
    privateKey,
    publicKey,
    cose,
    signCount: options.signCount ?? 0,
    counter: {},
    backupEligible: true,
  };
  const authenticator = new SoftAuthenticator({ origin: options.origin, flags: { be: true, bs: true } });
  authenticator.credentials.push(credential);
  return {
    authenticator,
    credential,
    credentialId: id.toString('base64url'),
    userHandle: userHandle.toString('base64url'),
    cose,
    spki: publicKey instanceof KeyObject ? publicKey.export({ format: 'der', type: 'spki' }) : undefined,
  };
}
