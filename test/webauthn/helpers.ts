// Shared fixtures for the verification tests: options as the service would issue them, the matching
// expectations, and one-call register/authenticate round trips through the soft authenticator.
import { randomBytes } from 'node:crypto';
import { parseClientData } from '../../src/webauthn/client-data.js';
import { DEFAULT_OFFERED_ALGORITHMS } from '../../src/webauthn/cose.js';
import { parseAuthentication, parseRegistration } from '../../src/webauthn/parse.js';
import { verifyAuthentication } from '../../src/webauthn/authentication.js';
import { verifyRegistration } from '../../src/webauthn/registration.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type {
  AuthenticationCredentialJSON,
  AuthenticationExpectation,
  RegistrationCredentialJSON,
  RegistrationExpectation,
  VerifiedAuthentication,
  VerifiedRegistration,
} from '../../src/webauthn/types.js';
import type { CreationOptionsJSON, RequestOptionsJSON, SoftAuthenticator, RegisterOptions, AuthenticateOptions } from '../support/soft-authenticator.js';

export const RP_ID = 'login.example.test';
export const ORIGIN = `https://${RP_ID}`;
export const NOW = new Date('2026-06-01T00:00:00Z');

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
  return { challenge: randomBytes(32).toString('base64url'), rpId: RP_ID, allowCredentials: allow.map((id) => ({ id })) };
}

export function registrationExpectation(options: CreationOptionsJSON, overrides: Partial<RegistrationExpectation> = {}): RegistrationExpectation {
  return {
    challenge: options.challenge,
    isAllowedOrigin: (origin) => origin === ORIGIN,
    allowCrossOrigin: false,
    rpId: RP_ID,
    requireUserVerification: false,
    algorithms: options.pubKeyCredParams.map((p) => p.alg),
    trust: permissiveTrust,
    now: NOW,
    ...overrides,
  };
}

/** Parses and verifies a registration response exactly as the ceremony does. */
export function verifyRegistrationJSON(json: RegistrationCredentialJSON, expected: RegistrationExpectation): VerifiedRegistration {
  const clientData = parseClientData(json.response.clientDataJSON);
  return verifyRegistration(parseRegistration(json, clientData), expected);
}

export function verifyAuthenticationJSON(json: AuthenticationCredentialJSON, expected: AuthenticationExpectation): VerifiedAuthentication {
  const clientData = parseClientData(json.response.clientDataJSON);
  return verifyAuthentication(parseAuthentication(json, clientData), expected);
}

export interface Registered {
  readonly options: CreationOptionsJSON;
  readonly json: RegistrationCredentialJSON;
  readonly verified: VerifiedRegistration;
}

export function register(auth: SoftAuthenticator, opts: RegisterOptions = {}, options = creationOptions()): Registered {
  const json = auth.register(options, opts);
  return { options, json, verified: verifyRegistrationJSON(json, registrationExpectation(options)) };
}

export function authenticationExpectation(
  registered: Registered,
  options: RequestOptionsJSON,
  stored: { signCount?: number; backupEligible?: boolean } = {},
  overrides: Partial<AuthenticationExpectation> = {},
): AuthenticationExpectation {
  return {
    challenge: options.challenge,
    isAllowedOrigin: (origin) => origin === ORIGIN,
    allowCrossOrigin: false,
    rpId: RP_ID,
    requireUserVerification: false,
    credential: {
      publicKey: registered.verified.publicKey.keyObject,
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
