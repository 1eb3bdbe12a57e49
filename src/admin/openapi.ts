// The OpenAPI 3.1 document of the service: the four operations (every field, the envelope, every error
// name) and the admin API. Built from the code's own catalogues (ERRORS, ADMIN_ERRORS) so that a new error
// name appears here by itself; test/ops/openapi.test.ts checks real responses against it.
import { ERRORS } from '../errors.js';
import { ADMIN_ERRORS } from './errors.js';

type JsonSchema = Record<string, unknown>;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const BASE64URL = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
const NONEMPTY_BASE64URL = { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9_-]+$' };
const USER_VERIFICATION = { type: 'string', enum: ['required', 'preferred', 'discouraged'] };
const DATE_TIME = { type: 'string', format: 'date-time' };
const HINTS = {
  type: 'array', items: { type: 'string', enum: ['security-key', 'client-device', 'hybrid'] },
  description: 'WebAuthn L3 hints, in order of preference. A request\'s hints win over the application\'s default hints; an unknown hint is refused with UNKNOWN_HINT.',
};
/** The fields of an application in the config file's shape: what ApplicationInput accepts and Application returns. */
const APPLICATION_FIELDS: Record<string, JsonSchema> = {
  name: { type: 'string' }, icon: { type: 'string' }, domain: { type: 'string' },
  origins: { type: 'array', items: { type: 'string' } },
  variants: { type: 'array', items: { type: 'string', enum: ['standard', 'local'] } },
  localOrigins: { type: 'array', items: { type: 'string' } },
  timeoutMs: { type: 'integer' }, algorithms: { type: 'array', items: { type: 'integer' } },
  userVerification: { anyOf: [USER_VERIFICATION, { type: 'null' }] },
  counterPolicy: { type: 'string', enum: ['strict', 'warn'] },
  revealUnknownUsers: { type: 'boolean' }, allowCrossOrigin: { type: 'boolean' },
  attestation: ref('AttestationPolicy'),
  hints: HINTS,
  relatedOrigins: { type: 'array', items: { type: 'string' }, description: 'https origins on other registrable domains that may use the domain as RP ID (WebAuthn L3 related origins).' },
  backupEligibility: { type: 'string', enum: ['any', 'required', 'forbidden'] },
};

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

  // --- Admin API ---
  AdminErrorName: { type: 'string', enum: Object.keys(ADMIN_ERRORS) },
  AdminError: {
    type: 'object', additionalProperties: false, required: ['error', 'message'],
    properties: { error: ref('AdminErrorName'), message: { type: 'string' }, problems: { type: 'array', items: { type: 'string' } } },
  },
  Health: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { const: 'ok' } } },
  Readiness: {
    type: 'object', additionalProperties: false, required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ready', 'not ready', 'draining'] },
      checks: { type: 'object', additionalProperties: { type: 'string', pattern: '^(ok|unavailable: .*)$' } },
    },
  },
  AttestationPolicy: {
    type: 'object',
    description: 'The application\'s attestation trust policy (docs/attestation.md). Paths are files on the service\'s host; relative ones resolve against the data folder.',
    properties: {
      trustAnchors: { type: 'array', items: { type: 'string' }, description: 'PEM files of the application\'s own trust anchors.' },
      requireTrusted: { type: 'boolean', description: 'Refuse every attestation that does not chain to a trusted root (ATTESTATION_NOT_TRUSTED), none and self included.' },
      metadata: { type: ['string', 'null'], description: 'A FIDO MDS3 BLOB file, verified at start and at every metadata reload; null: no metadata.' },
      aaguidAllow: { type: 'array', items: { type: 'string' }, description: 'Only these AAGUIDs may register (empty: any); decides only on an AAGUID the attestation proved (else AAGUID_NOT_PROVEN).' },
      aaguidDeny: { type: 'array', items: { type: 'string' }, description: 'These AAGUIDs may not register; decides only on an AAGUID the attestation proved (else AAGUID_NOT_PROVEN).' },
      metadataRoots: { type: 'array', items: { type: 'string' }, description: 'PEM roots that sign the `metadata` BLOB (empty: the bundled FIDO MDS roots). Needs `metadata`.' },
      metadataCrls: {
        type: 'array', items: { type: 'string' },
        description: 'CRL files (PEM or DER) of the `metadata` BLOB\'s signing chain: each certificate below the root needs a current CRL of its issuer here and must not be listed on it, or the BLOB is refused. Absent: the chain\'s revocation is not checked. Needs `metadata`.',
      },
      enforceStatusAtAuthentication: { type: 'boolean', description: 'Refuse authentication by an authenticator model the metadata now reports compromised.' },
    },
  },
  ApplicationInput: {
    type: 'object',
    description: 'An application in the config file\'s shape (docs/configuration.md). On create, clientId is generated and must be absent; on update, any subset of the fields.',
    properties: {
      ...APPLICATION_FIELDS,
    },
  },
  Application: {
    type: 'object', additionalProperties: false,
    required: ['clientId', 'name', 'icon', 'domain', 'origins', 'variants', 'localOrigins', 'timeoutMs', 'algorithms', 'userVerification',
      'counterPolicy', 'revealUnknownUsers', 'allowCrossOrigin', 'attestation', 'approved', 'disabled', 'activeVariants', 'source', 'createdAt', 'updatedAt'],
    properties: {
      clientId: { type: 'string', minLength: 1 },
      ...APPLICATION_FIELDS,
      approved: { type: 'boolean', description: 'Standard variant approved for the domain.' },
      disabled: { type: 'boolean' },
      activeVariants: { type: 'array', items: { type: 'string', enum: ['standard', 'local'] } },
      source: { type: 'string', enum: ['config', 'admin'] },
      createdAt: DATE_TIME, updatedAt: DATE_TIME,
    },
  },
  ApplicationList: { type: 'object', additionalProperties: false, required: ['applications'], properties: { applications: { type: 'array', items: ref('Application') } } },
  ApplicationDeleted: {
    type: 'object', additionalProperties: false, required: ['clientId', 'deletedCredentials'],
    properties: { clientId: { type: 'string' }, deletedCredentials: { type: 'integer', minimum: 0 } },
  },
  Credential: {
    type: 'object', additionalProperties: false,
    required: ['clientId', 'credentialId', 'userHandle', 'username', 'nickname', 'authenticatorName', 'authenticatorIconLight',
      'authenticatorIconDark', 'authenticatorVerified', 'aaguid', 'algorithm', 'transports', 'backupEligible',
      'backupState', 'userVerified', 'residentKey', 'attestationFormat', 'attestationType', 'attestationTrusted', 'signCount', 'cloneWarning', 'createdAt', 'lastUsedAt'],
    properties: {
      clientId: { type: 'string' }, credentialId: NONEMPTY_BASE64URL, userHandle: BASE64URL, username: { type: 'string' },
      nickname: { type: ['string', 'null'] },
      authenticatorName: { type: ['string', 'null'], description: 'From FIDO metadata at registration, else from the bundled AAGUID lists (passkey providers, security keys).' },
      authenticatorIconLight: { type: ['string', 'null'], description: 'SVG data URI for light backgrounds (passkey providers only).' },
      authenticatorIconDark: { type: ['string', 'null'], description: 'SVG data URI for dark backgrounds (passkey providers only).' },
      authenticatorVerified: { type: 'boolean', description: 'true only when a trusted attestation proved the AAGUID; otherwise the name is what the authenticator claims.' },
      aaguid: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
      algorithm: { type: 'integer' }, transports: { type: 'array', items: { type: 'string' } },
      backupEligible: { type: 'boolean' }, backupState: { type: 'boolean' }, userVerified: { type: 'boolean' },
      residentKey: { type: ['boolean', 'null'] },
      attestationFormat: { type: 'string' },
      attestationType: { type: 'string', enum: ['none', 'self', 'basic', 'attca', 'anonca', 'uncertain'] },
      attestationTrusted: { type: 'boolean' },
      signCount: { type: 'integer', minimum: 0 }, cloneWarning: { type: 'boolean' },
      createdAt: DATE_TIME, lastUsedAt: { anyOf: [DATE_TIME, { type: 'null' }] },
    },
  },
  CredentialPage: {
    type: 'object', additionalProperties: false, required: ['credentials', 'next'],
    properties: { credentials: { type: 'array', items: ref('Credential') }, next: { type: ['string', 'null'], description: 'Pass as `after` for the next page.' } },
  },
  CredentialRename: {
    type: 'object', additionalProperties: false, required: ['nickname'],
    properties: { nickname: { type: ['string', 'null'], maxLength: 64 } },
  },
  CredentialDeleted: { type: 'object', additionalProperties: false, required: ['deleted'], properties: { deleted: { const: true } } },
  UserCredentialsDeleted: {
    type: 'object', additionalProperties: false, required: ['clientId', 'username', 'deleted'],
    properties: { clientId: { type: 'string' }, username: { type: ['string', 'null'] }, deleted: { type: 'integer', minimum: 0, description: 'How many credentials were deleted (0 when the user had none).' } },
  },
  AuditEvent: {
    type: 'object', additionalProperties: false,
    required: ['id', 'time', 'actor', 'action', 'clientId', 'subject', 'target', 'result', 'errorName', 'requestId', 'remoteAddress'],
    properties: {
      id: { type: 'string' }, time: DATE_TIME,
      actor: { type: 'string', description: '`admin:<token name>`, `cli:<user>`, `client:<Client ID>` or `system`.' },
      action: { type: 'string' },
      clientId: { type: ['string', 'null'] }, subject: { type: ['string', 'null'] }, target: { type: ['string', 'null'] },
      result: { type: 'string', enum: ['ok', 'failed'] }, errorName: { type: ['string', 'null'] },
      requestId: { type: ['string', 'null'] }, remoteAddress: { type: ['string', 'null'] },
      details: { type: 'object' },
    },
  },
  AuditPage: {
    type: 'object', additionalProperties: false, required: ['events', 'next'],
    properties: { events: { type: 'array', items: ref('AuditEvent') }, next: { type: ['string', 'null'] } },
  },
  MetadataReload: {
    type: 'object', additionalProperties: false, required: ['ok', 'changed', 'at', 'applications'],
    properties: {
      ok: { type: 'boolean', description: 'Every BLOB verified and is in use; false: see the applications whose `ok` is false (their previous BLOB stays in use).' },
      changed: { type: 'boolean', description: 'Some BLOB serial number changed.' },
      at: DATE_TIME,
      applications: {
        type: 'array',
        items: {
          type: 'object', additionalProperties: false,
          required: ['clientId', 'source', 'file', 'ok', 'serialBefore', 'serial', 'nextUpdate', 'entries', 'stale', 'revocationChecked', 'changed'],
          properties: {
            clientId: { type: 'string' }, source: { type: 'string', enum: ['config', 'stored'] }, file: { type: 'string' }, ok: { type: 'boolean' },
            serialBefore: { type: ['integer', 'null'] }, serial: { type: ['integer', 'null'] }, nextUpdate: { type: ['string', 'null'] },
            entries: { type: ['integer', 'null'] }, stale: { type: 'boolean' },
            revocationChecked: { type: 'boolean', description: 'The signing chain of the BLOB in use was checked against `attestation.metadataCrls` when it was loaded; false: its revocation was not checked.' },
            changed: { type: 'boolean' },
            error: { type: 'string', description: 'Why the new BLOB was not taken, e.g. `METADATA_BLOB_SIGNATURE_INVALID: …` or `METADATA_BLOB_CRL_INVALID: …`.' },
          },
        },
      },
    },
  },
};

const reload = schemas.MetadataReload as { required: string[]; properties: Record<string, JsonSchema> };
// A failed reload (422): the admin error envelope around the same report, so both kinds of client read it.
schemas.MetadataReloadFailed = {
  type: 'object', additionalProperties: false,
  required: ['error', 'message', 'problems', ...reload.required],
  properties: {
    error: { const: 'METADATA_RELOAD_FAILED' },
    message: { type: 'string' },
    problems: { type: 'array', minItems: 1, items: { type: 'string' }, description: '`<clientId>: <error>` for each application whose new BLOB was not taken.' },
    ...reload.properties,
    ok: { const: false },
  },
};

const serviceHeaders = [
  { name: 'User-agent', in: 'header', required: true, schema: { type: 'string', pattern: '^\\S+ AppID: \\S+$' }, description: 'Exactly `<vendor> AppID: <Client ID>` (the vendor word is configured, default `Vendor`).' },
  { name: 'origin', in: 'header', required: false, schema: { type: 'string' }, description: 'Standard variant: required, one of the application\'s origins. Local variant: not sent.' },
];

function jsonContent(schema: JsonSchema) {
  return { 'application/json': { schema } };
}

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

const adminError = (statuses: readonly number[]) => Object.fromEntries(statuses.map((s) => [String(s), { description: 'Failure', content: jsonContent(ref('AdminError')) }]));
const adminOk = (schema: string, status = 200) => ({ [String(status)]: { description: 'OK', content: jsonContent(ref(schema)) } });
const clientIdParam = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
const credentialIdParam = { name: 'credentialId', in: 'path', required: true, schema: { type: 'string' } };
const secured = { security: [{ adminToken: [] }], tags: ['admin'] };
const applicationAction = (summary: string) => ({ post: { ...secured, summary, parameters: [clientIdParam], responses: { ...adminOk('Application'), ...adminError([401, 404, 409, 503]) } } });

const paths = {
  '/api/attestation/options': operation('Registration challenge', 'AttestationOptionsRequest', 'AttestationOptionsResponse', 'Issues a challenge and the parameters of navigator.credentials.create().'),
  '/api/attestation/result': operation('Registration verification', 'AttestationResultRequest', 'AttestationResultResponse', 'Verifies the attestation (WebAuthn L3 §7.1) and stores the credential (standard) or returns the sealed blob (local).'),
  '/api/assertion/options': operation('Authentication challenge', 'AssertionOptionsRequest', 'AssertionOptionsResponse', 'Issues a challenge and the parameters of navigator.credentials.get().'),
  '/api/assertion/result': operation('Authentication verification', 'AssertionResultRequest', 'AssertionResultResponse', 'Verifies the assertion (WebAuthn L3 §7.2).'),

  '/health': { get: { tags: ['operations'], summary: 'Liveness', responses: adminOk('Health') } },
  '/ready': { get: { tags: ['operations'], summary: 'Readiness: every backend answers', responses: { ...adminOk('Readiness'), '503': { description: 'Not ready', content: jsonContent(ref('Readiness')) } } } },
  '/metrics': { get: { tags: ['operations'], summary: 'Prometheus metrics (text format 0.0.4)', responses: { '200': { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
  '/openapi.json': { get: { tags: ['operations'], summary: 'This document', responses: { '200': { description: 'OK', content: jsonContent({ type: 'object' }) } } } },
  '/admin/applications': {
    get: { ...secured, summary: 'List applications', responses: { ...adminOk('ApplicationList'), ...adminError([401, 503]) } },
    post: { ...secured, summary: 'Create an application (Client ID generated)', requestBody: { required: true, content: jsonContent(ref('ApplicationInput')) }, responses: { ...adminOk('Application', 201), ...adminError([400, 401, 409, 413, 415, 503]) } },
  },
  '/admin/applications/{clientId}': {
    get: { ...secured, summary: 'Show an application', parameters: [clientIdParam], responses: { ...adminOk('Application'), ...adminError([401, 404, 503]) } },
    patch: { ...secured, summary: 'Update origins, variants, policy…', parameters: [clientIdParam], requestBody: { required: true, content: jsonContent(ref('ApplicationInput')) }, responses: { ...adminOk('Application'), ...adminError([400, 401, 404, 413, 415, 503]) } },
    delete: { ...secured, summary: 'Delete an application and its credentials', parameters: [clientIdParam], responses: { ...adminOk('ApplicationDeleted'), ...adminError([401, 404, 503]) } },
  },
  '/admin/applications/{clientId}/approve': applicationAction('Approve the standard variant for the domain'),
  '/admin/applications/{clientId}/unapprove': applicationAction('Withdraw the standard-variant approval'),
  '/admin/applications/{clientId}/disable': applicationAction('Disable (the four operations answer CLIENT_ID_UNKNOWN)'),
  '/admin/applications/{clientId}/enable': applicationAction('Enable again'),
  '/admin/applications/{clientId}/credentials': {
    get: {
      ...secured, summary: 'Credentials of a user (username or userHandle), or all of the application page by page',
      parameters: [clientIdParam,
        { name: 'username', in: 'query', schema: { type: 'string' } }, { name: 'userHandle', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } }, { name: 'after', in: 'query', schema: { type: 'string' } }],
      responses: { ...adminOk('CredentialPage'), ...adminError([400, 401, 404, 503]) },
    },
    delete: {
      ...secured, summary: 'Delete every credential of one user (username or userHandle is required): a user\'s data, erased; audited as credential.delete-user',
      parameters: [clientIdParam, { name: 'username', in: 'query', schema: { type: 'string' } }, { name: 'userHandle', in: 'query', schema: { type: 'string' } }],
      responses: { ...adminOk('UserCredentialsDeleted'), ...adminError([400, 401, 404, 503]) },
    },
  },
  '/admin/applications/{clientId}/credentials/{credentialId}': {
    get: { ...secured, summary: 'Show a credential', parameters: [clientIdParam, credentialIdParam], responses: { ...adminOk('Credential'), ...adminError([401, 404, 503]) } },
    patch: { ...secured, summary: 'Rename a credential', parameters: [clientIdParam, credentialIdParam], requestBody: { required: true, content: jsonContent(ref('CredentialRename')) }, responses: { ...adminOk('Credential'), ...adminError([400, 401, 404, 503]) } },
    delete: { ...secured, summary: 'Delete a credential', parameters: [clientIdParam, credentialIdParam], responses: { ...adminOk('CredentialDeleted'), ...adminError([401, 404, 503]) } },
  },
  '/admin/audit': {
    get: {
      ...secured, summary: 'Read the audit log (oldest first)',
      parameters: ['since', 'until', 'clientId', 'action', 'actor', 'result', 'after', 'limit'].map((name) => ({ name, in: 'query', schema: { type: name === 'limit' ? 'integer' : 'string' } })),
      responses: { ...adminOk('AuditPage'), ...adminError([400, 401, 503]) },
    },
  },
  '/admin/metadata/reload': {
    post: {
      ...secured, summary: 'Read every metadata BLOB again and use those that verify (also SIGHUP and the periodic file check)',
      description: '200 when every BLOB verified and is in use; 422 METADATA_RELOAD_FAILED when one did not (its previous BLOB stays in use), with the same report.',
      responses: {
        ...adminOk('MetadataReload'),
        '422': { description: 'A BLOB was not taken (see problems and applications[].error); the previous one stays in use', content: jsonContent(ref('MetadataReloadFailed')) },
        ...adminError([401, 503]),
      },
    },
  },
  '/admin/audit/export': {
    get: {
      ...secured, summary: 'Export the audit log as JSON lines (same filters)',
      responses: { '200': { description: 'One AuditEvent per line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, ...adminError([400, 401, 503]) },
    },
  },
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
