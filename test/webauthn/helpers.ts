// Shared fixtures for the verification tests: options as the service would issue them, the matching
// expectations, and one-call register/authenticate round trips through the soft authenticator.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FidoError, type ErrorName } from '../../src/errors/catalogue.js';
import { decodeCbor } from '../../src/webauthn/cbor.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { parseClientData } from '../../src/webauthn/client-data.js';
import { DEFAULT_OFFERED_ALGORITHMS } from '../../src/webauthn/cose.js';
import { parseAuthentication, parseRegistration } from '../../src/webauthn/parse.js';
import { verifyAuthentication } from '../../src/webauthn/authentication.js';
import { verifyRegistration } from '../../src/webauthn/registration.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type {
  AuthenticationCredentialJSON,
  AuthenticationExpectation,
  ClientDataExpectation,
  RegistrationCredentialJSON,
  RegistrationExpectation,
  VerifiedAuthentication,
  VerifiedRegistration,
} from '../../src/webauthn/types.js';
import { createChain } from '../support/pki.js';
import type {
  AuthenticateOptions,
  CommonBreak,
  CreationOptionsJSON,
  RegisterOptions,
  RequestOptionsJSON,
  SoftAuthenticator,
} from '../support/soft-authenticator.js';

export const RP_ID = 'login.example.test';
export const ORIGIN = `https://${RP_ID}`;
export const NOW = new Date('2026-06-01T00:00:00Z');

/** Asserts that `fn` throws a FidoError with this name (and, when given, a detail matching `detail`). */
export function failsWith(fn: () => unknown, code: ErrorName, detail?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FidoError, `expected FidoError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (detail) assert.match(err.detail ?? '', detail);
    return true;
  });
}

/** The error each break both ceremonies share must produce (the signature breaks differ: see each table). */
export const COMMON_BREAK_ERRORS: Readonly<Record<Exclude<CommonBreak, 'signedData' | 'flipSignature'>, ErrorName>> = {
  type: 'INVALID_OPERATION_TYPE',
  challenge: 'CHALLENGE_NOT_MATCHED',
  origin: 'ORIGIN_NOT_MATCHED',
  crossOrigin: 'CROSS_ORIGIN_NOT_ALLOWED',
  topOrigin: 'CROSS_ORIGIN_NOT_ALLOWED',
  tokenBindingNotObject: 'TOKEN_BINDING_STATUS_MISSING',
  tokenBindingStatus: 'TOKEN_BINDING_STATUS_MISSING',
  rpIdHash: 'RPID_HASH_NOT_MATCHED',
  up: 'USER_PRESENCE_FLAG_NOT_SET',
  uv: 'USER_VERIFICATION_FLAG_NOT_SET',
  bsWithoutBe: 'INVALID_BACKUP_STATE_FLAG_SET',
  trailingBytes: 'INVALID_AUTHENTICATOR_DATA',
};

/** The registration response with its attStmt (and, through `obj`, the whole attestation object) edited. */
export function editStatement(
  json: RegistrationCredentialJSON,
  edit: (attStmt: Map<string, CborEncodable>, obj: Map<string, CborEncodable>) => void,
): RegistrationCredentialJSON {
  const obj = decodeCbor(Buffer.from(json.response.attestationObject, 'base64url')) as Map<string, CborEncodable>;
  edit(obj.get('attStmt') as Map<string, CborEncodable>, obj);
  return { ...json, response: { ...json.response, attestationObject: encodeCbor(obj).toString('base64url') } };
}

/**
 * A well-formed DER certificate whose P-256 point is off the curve: OpenSSL parses the certificate but
 * cannot decode its key (X509Certificate.publicKey throws a raw OpenSSL error).
 */
export function certificateWithUndecodableKey(): Buffer {
  const { leaf } = createChain({ intermediateCount: 0 });
  const spki = leaf.publicKey.export({ type: 'spki', format: 'der' });
  const point = spki.subarray(spki.length - 65); // 0x04 ‖ x ‖ y
  const at = leaf.der.indexOf(point);
  assert.ok(at > 0, 'the leaf holds its key point');
  const damaged = Buffer.from(leaf.der);
  damaged[at + 10] = damaged[at + 10]! ^ 0x01; // inside x: the point leaves the curve
  return damaged;
}

/** x5c entries of the wrong kind, and the error each must give wherever it stands in x5c. */
export const HOSTILE_X5C_ENTRIES: readonly (readonly [title: string, entry: () => CborEncodable, code: ErrorName])[] = [
  ['garbage DER', () => Buffer.from('3003020101', 'hex'), 'CERTIFICATE_UNREADABLE'],
  ['a certificate whose public key cannot be decoded', certificateWithUndecodableKey, 'CERTIFICATE_UNREADABLE'],
  ['an empty byte string', () => Buffer.alloc(0), 'INVALID_ATTESTATION_FORMAT'],
  ['a non-bytes element', () => 'MIIB', 'INVALID_ATTESTATION_FORMAT'],
];

export const permissiveTrust = createTrustEvaluator({ anchors: [], requireTrusted: false });

export function creationOptions(algorithms: readonly number[] = DEFAULT_OFFERED_ALGORITHMS): CreationOptionsJSON {
  return {
    rp: { id: RP_ID, name: 'Example' },
    user: { id: randomBytes(32).toString('base64url'), name: 'alice', displayName: 'Alice' },
    challenge: randomBytes(32).toString('base64url'),
    pubKeyCredParams: algorithms.map((alg) => ({ type: 'public-key', alg })),
  };
}

export function requestOptions(allow: readonly string[] = []): RequestOptionsJSON {
  return {
    challenge: randomBytes(32).toString('base64url'),
    rpId: RP_ID,
    allowCredentials: allow.map((id) => ({ id })),
  };
}

/** What both ceremonies expect alike: the issued challenge, ORIGIN only, same-origin, RP_ID, UV not required. */
function ceremonyExpectation(challenge: string): ClientDataExpectation {
  return {
    challenge,
    isAllowedOrigin: (origin) => origin === ORIGIN,
    allowCrossOrigin: false,
    rpId: RP_ID,
    requireUserVerification: false,
  };
}

export function registrationExpectation(
  options: CreationOptionsJSON,
  overrides: Partial<RegistrationExpectation> = {},
): RegistrationExpectation {
  return {
    ...ceremonyExpectation(options.challenge),
    algorithms: options.pubKeyCredParams.map((p) => p.alg),
    trust: permissiveTrust,
    now: NOW,
    ...overrides,
  };
}

/** Parses and verifies a registration response exactly as the ceremony does. */
export function verifyRegistrationJSON(
  json: RegistrationCredentialJSON,
  expected: RegistrationExpectation,
): VerifiedRegistration {
  const clientData = parseClientData(json.response.clientDataJSON);
  return verifyRegistration(parseRegistration(json, clientData), expected);
}

export function verifyAuthenticationJSON(
  json: AuthenticationCredentialJSON,
  expected: AuthenticationExpectation,
): VerifiedAuthentication {
  const clientData = parseClientData(json.response.clientDataJSON);
  return verifyAuthentication(parseAuthentication(json, clientData), expected);
}

export interface Registered {
  readonly options: CreationOptionsJSON;
  readonly json: RegistrationCredentialJSON;
  readonly verified: VerifiedRegistration;
}

/** Registers at NOW: the soft authenticator's clock (e.g. a SafetyNet timestamp) is the expectation's. */
export function register(auth: SoftAuthenticator, opts: RegisterOptions = {}, options = creationOptions()): Registered {
  const json = auth.register(options, { now: NOW, ...opts });
  return { options, json, verified: verifyRegistrationJSON(json, registrationExpectation(options)) };
}

export function authenticationExpectation(
  registered: Registered,
  options: RequestOptionsJSON,
  stored: { signCount?: number; backupEligible?: boolean } = {},
  overrides: Partial<AuthenticationExpectation> = {},
): AuthenticationExpectation {
  return {
    ...ceremonyExpectation(options.challenge),
    credential: {
      publicKey: registered.verified.publicKey.key,
      algorithm: registered.verified.publicKey.alg,
      signCount: stored.signCount ?? registered.verified.signCount,
      userHandle: registered.options.user.id,
      backupEligible: stored.backupEligible ?? registered.verified.flags.be,
    },
    counterPolicy: 'strict',
    ...overrides,
  };
}

export function authenticate(
  auth: SoftAuthenticator,
  registered: Registered,
  opts: AuthenticateOptions = {},
  stored: { signCount?: number; backupEligible?: boolean } = {},
  overrides: Partial<AuthenticationExpectation> = {},
): VerifiedAuthentication {
  const options = requestOptions([registered.json.id]);
  const json = auth.authenticate(options, opts);
  return verifyAuthenticationJSON(json, authenticationExpectation(registered, options, stored, overrides));
}
