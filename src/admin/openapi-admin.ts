// The admin listener's half of the OpenAPI document: its schemas (applications, credentials, audit,
// metadata reload, the admin error with every ADMIN_ERRORS name) and its paths. openapi.ts joins both halves.
import { ADMIN_ERRORS } from './errors.js';
import { APPLICATION_FIELDS, BASE64URL, DATE_TIME, jsonContent, NONEMPTY_BASE64URL, ref, type JsonSchema } from './openapi-shared.js';

export const ADMIN_SCHEMAS: Record<string, JsonSchema> = {
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

const reload = ADMIN_SCHEMAS.MetadataReload as { required: string[]; properties: Record<string, JsonSchema> };
// A failed reload (422): the admin error envelope around the same report, so both kinds of client read it.
ADMIN_SCHEMAS.MetadataReloadFailed = {
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

const adminError = (statuses: readonly number[]) => Object.fromEntries(statuses.map((s) => [String(s), { description: 'Failure', content: jsonContent(ref('AdminError')) }]));
const adminOk = (schema: string, status = 200) => ({ [String(status)]: { description: 'OK', content: jsonContent(ref(schema)) } });
const clientIdParam = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
const credentialIdParam = { name: 'credentialId', in: 'path', required: true, schema: { type: 'string' } };
const secured = { security: [{ adminToken: [] }], tags: ['admin'] };
const applicationAction = (summary: string) => ({ post: { ...secured, summary, parameters: [clientIdParam], responses: { ...adminOk('Application'), ...adminError([401, 404, 409, 503]) } } });

export const ADMIN_PATHS = {
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
