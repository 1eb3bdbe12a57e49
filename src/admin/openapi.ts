// The OpenAPI 3.1 document of the service: the four operations (every field, the envelope, every error
// name) and the admin API. Built from the code's own catalogues (ERRORS, ADMIN_ERRORS) so that a new error
// name appears here by itself; test/ops/openapi.test.ts checks real responses against it.
import { ERRORS } from '../errors.js';
import { HINTS, jsonContent, NONEMPTY_BASE64URL, ref, USER_VERIFICATION, type JsonSchema } from './openapi-shared.js';
import { ADMIN_PATHS, ADMIN_SCHEMAS } from './openapi-admin.js';

/** A success answer: the envelope plus the operation's fields, nothing else. */
function okEnvelope(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'errorMessage', 'sessionId', ...required],
    properties: {
      status: { const: 'ok' },
      errorMessage: { const: '', description: 'Empty on success (the samples show an empty string).' },
      sessionId: { type: 'string', description: 'Always present; a result call never needs it back (the challenge identifies the ceremony).' },
      ...properties,
    },
  };
}

const descriptor: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'id', 'transports'],
  properties: { type: { const: 'public-key' }, id: NONEMPTY_BASE64URL, transports: { type: 'array', items: { type: 'string' } } },
};

const UUID: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' };

/** Who signed in or registered, and how: every ok answer of both result operations (docs/api.md "Who and how"). */
const identity: Record<string, JsonSchema> = {
  username: { type: 'string', minLength: 1, description: 'The credential owner\'s full `<user>#<domain>` (from the credential, not the request).' },
  userHandle: { ...NONEMPTY_BASE64URL, description: 'user.id of the owner.' },
  credentialId: NONEMPTY_BASE64URL,
  userVerified: { type: 'boolean', description: 'UV of this ceremony.' },
  backupEligible: { type: 'boolean', description: 'BE of this ceremony: the credential may be synced.' },
  backupState: { type: 'boolean', description: 'BS of this ceremony: the credential is synced (a synced passkey has BE and BS).' },
  aaguid: { ...UUID, description: 'The authenticator model; all zeros when it gives none.' },
  authenticatorName: { type: ['string', 'null'], description: 'The authenticator\'s name when known, else null.' },
  authenticatorAttachment: { type: 'string', enum: ['platform', 'cross-platform'], description: 'Only when the browser sent it (unsigned).' },
  signCount: { type: 'integer', minimum: 0, description: 'The counter of this ceremony\'s authenticator data.' },
};
const IDENTITY_REQUIRED = ['username', 'userHandle', 'credentialId', 'userVerified', 'backupEligible', 'backupState', 'aaguid', 'authenticatorName', 'signCount'];

const registration: Record<string, JsonSchema> = {
  discoverable: { type: ['boolean', 'null'], description: 'credProps.rk as the client reported it; null when unknown.' },
  attestationFormat: { type: 'string', minLength: 1 },
  attestationType: { type: 'string', enum: ['none', 'self', 'basic', 'attca', 'anonca', 'uncertain'] },
  attestationTrusted: { type: 'boolean', description: 'The attestation chained to a trust anchor of the application.' },
};

const schemas: Record<string, JsonSchema> = {
  ErrorName: { type: 'string', enum: Object.keys(ERRORS), description: 'The error names of the four operations (docs/errors.md).' },
  FailedEnvelope: {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'errorMessage', 'sessionId'],
    properties: {
      status: { const: 'failed' },
      errorMessage: {
        type: 'array',
        description: 'First the error name, then a short description for the integrator.',
        prefixItems: [ref('ErrorName'), { type: 'string', minLength: 1 }],
        minItems: 2,
        maxItems: 2,
      },
      sessionId: { type: 'string' },
    },
  },
  AuthenticatorSelection: {
    type: 'object',
    additionalProperties: false,
    properties: {
      authenticatorAttachment: { type: 'string', enum: ['platform', 'cross-platform'] },
      requireResidentKey: { type: 'boolean' },
      residentKey: { type: 'string', enum: ['discouraged', 'preferred', 'required'] },
      userVerification: USER_VERIFICATION,
    },
  },
  AttestationOptionsRequest: {
    type: 'object',
    required: ['username'],
    properties: {
      username: { type: 'string', minLength: 1, description: 'Standard: `<user>#<application domain>`; local: `<user>#localhost`. Length bounded by limits.usernameLength.' },
      displayName: { type: 'string', minLength: 1 },
      authenticatorSelection: ref('AuthenticatorSelection'),
      attestation: { type: 'string', enum: ['none', 'indirect', 'direct', 'enterprise'] },
      extensions: { type: 'object' },
      hints: HINTS,
      mediation: {
        type: 'string', enum: ['optional', 'required', 'conditional'],
        description: '`conditional`: an automatic passkey upgrade (conditional create); its result may lack the UP flag. The others change nothing.',
      },
    },
  },
  AttestationOptionsResponse: okEnvelope({
    rp: { type: 'object', additionalProperties: false, required: ['name', 'icon', 'id'], properties: { name: { type: 'string' }, icon: { type: 'string' }, id: { type: 'string', minLength: 1 } } },
    user: {
      type: 'object', additionalProperties: false, required: ['name', 'icon', 'id', 'displayName'],
      properties: { name: { type: 'string' }, icon: { type: 'string' }, id: NONEMPTY_BASE64URL, displayName: { type: 'string' } },
    },
    challenge: { type: 'string', minLength: 43, pattern: '^[A-Za-z0-9_-]+$' },
    pubKeyCredParams: {
      type: 'array', minItems: 1,
      items: { type: 'object', additionalProperties: false, required: ['type', 'alg'], properties: { type: { const: 'public-key' }, alg: { type: 'integer' } } },
    },
    timeout: { type: 'integer', minimum: 1, description: 'Milliseconds.' },
    excludeCredentials: { type: 'array', items: descriptor },
    authenticatorSelection: ref('AuthenticatorSelection'),
    attestation: { type: 'string', enum: ['none', 'indirect', 'direct', 'enterprise'] },
    extensions: { type: 'object', required: ['credProps'], properties: { credProps: { const: true } } },
    hints: { ...HINTS, description: 'The request\'s hints, else the application\'s default hints; absent when neither has any.' },
    mediation: { const: 'conditional', description: 'Only when the request asked for a conditional create: call create() with mediation "conditional".' },
  }, ['rp', 'user', 'challenge', 'pubKeyCredParams', 'timeout', 'excludeCredentials', 'authenticatorSelection', 'attestation', 'extensions']),
  AttestationResultRequest: {
    type: 'object',
    required: ['id', 'rawId', 'type', 'response'],
    properties: {
      id: NONEMPTY_BASE64URL,
      rawId: NONEMPTY_BASE64URL,
      type: { const: 'public-key' },
      response: {
        type: 'object', required: ['clientDataJSON', 'attestationObject'],
        properties: { clientDataJSON: NONEMPTY_BASE64URL, attestationObject: NONEMPTY_BASE64URL, transports: { type: 'array', items: { type: 'string' } } },
      },
      extensions: { type: 'object', description: 'Client extension results. Local variant: must contain `localhost: true`.' },
    },
  },
  AttestationResultResponse: okEnvelope({
    localhost: { ...NONEMPTY_BASE64URL, description: 'Local variant only: the sealed key blob to send back in extensions.localhost of every assertion result.' },
    ...identity,
    ...registration,
  }, [...IDENTITY_REQUIRED, ...Object.keys(registration)]),
  AssertionOptionsRequest: {
    type: 'object',
    required: ['username'],
    properties: {
      username: { type: 'string', minLength: 1, description: '`<user>#<domain>` or `<user>#localhost`; an empty user part (`#<domain>`, `#localhost`) signs in without a user name (empty allowCredentials).' },
      userVerification: USER_VERIFICATION,
      extensions: { type: 'object' },
      hints: HINTS,
    },
  },
  AssertionOptionsResponse: okEnvelope({
    challenge: { type: 'string', minLength: 43, pattern: '^[A-Za-z0-9_-]+$' },
    timeout: { type: 'integer', minimum: 1, description: 'Milliseconds.' },
    rpId: { type: 'string', minLength: 1 },
    allowCredentials: { type: 'array', items: descriptor },
    userVerification: USER_VERIFICATION,
    extensions: { type: 'object' },
    hints: { ...HINTS, description: 'The request\'s hints, else the application\'s default hints; absent when neither has any.' },
  }, ['challenge', 'timeout', 'rpId', 'allowCredentials', 'userVerification', 'extensions']),
  AssertionResultRequest: {
    type: 'object',
    required: ['id', 'rawId', 'type', 'response'],
    properties: {
      id: NONEMPTY_BASE64URL,
      rawId: NONEMPTY_BASE64URL,
      type: { const: 'public-key' },
      response: {
        type: 'object', required: ['clientDataJSON', 'authenticatorData', 'signature'],
        properties: {
          clientDataJSON: NONEMPTY_BASE64URL, authenticatorData: NONEMPTY_BASE64URL, signature: NONEMPTY_BASE64URL,
          userHandle: { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]*$', description: 'Required (non-empty) in a sign-in without a user name.' },
        },
      },
      extensions: { type: 'object', description: 'Local variant: must contain `localhost` = the blob from the attestation result.' },
    },
  },
  AssertionResultResponse: okEnvelope(identity, IDENTITY_REQUIRED),

  ...ADMIN_SCHEMAS,
};

const serviceHeaders = [
  { name: 'User-agent', in: 'header', required: true, schema: { type: 'string', pattern: '^\\S+ AppID: \\S+$' }, description: 'Exactly `<vendor> AppID: <Client ID>` (the vendor word is configured, default `Vendor`).' },
  { name: 'origin', in: 'header', required: false, schema: { type: 'string' }, description: 'Standard variant: required, one of the application\'s origins. Local variant: not sent.' },
];

function failures(statuses: readonly number[]) {
  const names: Record<number, string> = { 400: 'Malformed request or failed verification', 403: 'Unknown or disabled Client ID, origin or variant not allowed', 404: 'No such path', 405: 'Not POST', 413: 'Body too large', 415: 'Not JSON', 429: 'Rate limited', 500: 'Unexpected error', 503: 'A backing store is unreachable' };
  return Object.fromEntries(statuses.map((status) => [String(status), {
    description: names[status] ?? 'Failure',
    content: jsonContent(ref('FailedEnvelope')),
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 1 } } } } : {}),
  }]));
}

function operation(summary: string, request: string, response: string, description: string) {
  return {
    post: {
      summary,
      description,
      tags: ['ceremonies'],
      parameters: serviceHeaders,
      requestBody: { required: true, content: jsonContent(ref(request)) },
      responses: { '200': { description: 'Processing succeeded.', content: jsonContent(ref(response)) }, ...failures([400, 403, 405, 413, 415, 429, 500, 503]) },
    },
  };
}

const paths = {
  '/api/attestation/options': operation('Registration challenge', 'AttestationOptionsRequest', 'AttestationOptionsResponse', 'Issues a challenge and the parameters of navigator.credentials.create().'),
  '/api/attestation/result': operation('Registration verification', 'AttestationResultRequest', 'AttestationResultResponse', 'Verifies the attestation (WebAuthn L3 §7.1) and stores the credential (standard) or returns the sealed blob (local).'),
  '/api/assertion/options': operation('Authentication challenge', 'AssertionOptionsRequest', 'AssertionOptionsResponse', 'Issues a challenge and the parameters of navigator.credentials.get().'),
  '/api/assertion/result': operation('Authentication verification', 'AssertionResultRequest', 'AssertionResultResponse', 'Verifies the assertion (WebAuthn L3 §7.2).'),

  ...ADMIN_PATHS,
};

export interface DocumentOptions {
  readonly version?: string;
}

/** The OpenAPI 3.1 document (a fresh object each call). */
export function openApiDocument(options: DocumentOptions = {}): Record<string, unknown> {
  return structuredClone({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'passkey-server',
      version: options.version ?? '0.1.0',
      summary: 'FIDO2/WebAuthn server: the four-operation API (standard and local variants) and its admin API.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: [
      { name: 'ceremonies', description: 'The four operations, on the service listener.' },
      { name: 'operations', description: 'Health, readiness, metrics: on the admin listener.' },
      { name: 'admin', description: 'Administration: on the admin listener, with an admin token.' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'An admin token made with `passkey-server admin token create`.' } },
    },
  });
}
