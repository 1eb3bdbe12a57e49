// The admin listener's paths in the OpenAPI document; their schemas, by component name, are those of
// src/schemas/admin.ts (openapi.ts names them and joins both halves).

import { jsonContent, ref } from './openapi-admin-refs.js';
import { WEBHOOK_PATHS } from './openapi-webhooks.js';
import { RELAY_SECRET_PATHS } from './openapi-relay-secrets.js';

export { jsonContent, ref };

const adminError = (statuses: readonly number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: 'Failure', content: jsonContent(ref('AdminError')) }]),
  );
const adminOk = (schema: string, status = 200) => ({
  [String(status)]: { description: 'OK', content: jsonContent(ref(schema)) },
});
const clientIdParam = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
const credentialIdParam = { name: 'credentialId', in: 'path', required: true, schema: { type: 'string' } };
const secured = { security: [{ adminToken: [] }], tags: ['admin'] };
const applicationAction = (summary: string) => ({
  post: {
    ...secured,
    summary,
    parameters: [clientIdParam],
    responses: { ...adminOk('Application'), ...adminError([401, 404, 409, 503]) },
  },
});

export const ADMIN_PATHS = {
  '/health': { get: { tags: ['operations'], summary: 'Liveness', responses: adminOk('Health') } },
  '/ready': {
    get: {
      tags: ['operations'],
      summary: 'Readiness: every backend answers',
      responses: {
        ...adminOk('Readiness'),
        '503': { description: 'Not ready', content: jsonContent(ref('Readiness')) },
      },
    },
  },
  '/metrics': {
    get: {
      tags: ['operations'],
      summary: 'Prometheus metrics (text format 0.0.4)',
      responses: { '200': { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
  '/openapi.json': {
    get: {
      tags: ['operations'],
      summary: 'This document',
      responses: { '200': { description: 'OK', content: jsonContent({ type: 'object' }) } },
    },
  },
  '/admin/applications': {
    get: {
      ...secured,
      summary: 'List applications',
      responses: { ...adminOk('ApplicationList'), ...adminError([401, 503]) },
    },
    post: {
      ...secured,
      summary: 'Create an application (Client ID generated)',
      requestBody: { required: true, content: jsonContent(ref('ApplicationInput')) },
      responses: { ...adminOk('Application', 201), ...adminError([400, 401, 409, 413, 415, 503]) },
    },
  },
  '/admin/applications/{clientId}': {
    get: {
      ...secured,
      summary: 'Show an application',
      parameters: [clientIdParam],
      responses: { ...adminOk('Application'), ...adminError([401, 404, 503]) },
    },
    patch: {
      ...secured,
      summary: 'Update origins, variants, policy…',
      parameters: [clientIdParam],
      requestBody: { required: true, content: jsonContent(ref('ApplicationInput')) },
      responses: { ...adminOk('Application'), ...adminError([400, 401, 404, 413, 415, 503]) },
    },
    delete: {
      ...secured,
      summary: 'Delete an application and its credentials',
      parameters: [clientIdParam],
      responses: { ...adminOk('ApplicationDeleted'), ...adminError([401, 404, 503]) },
    },
  },
  '/admin/applications/{clientId}/approve': applicationAction('Approve the standard variant for the domain'),
  '/admin/applications/{clientId}/unapprove': applicationAction('Withdraw the standard-variant approval'),
  '/admin/applications/{clientId}/disable': applicationAction('Disable (the four operations answer CLIENT_ID_UNKNOWN)'),
  '/admin/applications/{clientId}/enable': applicationAction('Enable again'),
  '/admin/applications/{clientId}/credentials': {
    get: {
      ...secured,
      summary: 'Credentials of a user (username or userHandle), or all of the application page by page',
      parameters: [
        clientIdParam,
        { name: 'username', in: 'query', schema: { type: 'string' } },
        { name: 'userHandle', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        { name: 'after', in: 'query', schema: { type: 'string' } },
      ],
      responses: { ...adminOk('CredentialPage'), ...adminError([400, 401, 404, 503]) },
    },
    delete: {
      ...secured,
      summary:
        "Delete every credential of one user (username or userHandle is required): a user's data, erased; audited as credential.delete-user",
      parameters: [
        clientIdParam,
        { name: 'username', in: 'query', schema: { type: 'string' } },
        { name: 'userHandle', in: 'query', schema: { type: 'string' } },
      ],
      responses: { ...adminOk('UserCredentialsDeleted'), ...adminError([400, 401, 404, 503]) },
    },
  },
  '/admin/applications/{clientId}/post-quantum': {
    get: {
      ...secured,
      summary: 'How many users have at least one post-quantum (ML-DSA) credential, to plan a migration',
      parameters: [clientIdParam],
      responses: { ...adminOk('PostQuantumUsage'), ...adminError([401, 404, 503]) },
    },
  },
  '/admin/applications/{clientId}/credentials/{credentialId}': {
    get: {
      ...secured,
      summary: 'Show a credential',
      parameters: [clientIdParam, credentialIdParam],
      responses: { ...adminOk('Credential'), ...adminError([401, 404, 503]) },
    },
    patch: {
      ...secured,
      summary: 'Rename a credential',
      parameters: [clientIdParam, credentialIdParam],
      requestBody: { required: true, content: jsonContent(ref('CredentialRename')) },
      responses: { ...adminOk('Credential'), ...adminError([400, 401, 404, 503]) },
    },
    delete: {
      ...secured,
      summary: 'Delete a credential',
      parameters: [clientIdParam, credentialIdParam],
      responses: { ...adminOk('CredentialDeleted'), ...adminError([401, 404, 503]) },
    },
  },
  '/admin/audit': {
    get: {
      ...secured,
      summary: 'Read the audit log (oldest first)',
      parameters: ['since', 'until', 'clientId', 'action', 'actor', 'result', 'after', 'limit'].map((name) => ({
        name,
        in: 'query',
        schema: { type: name === 'limit' ? 'integer' : 'string' },
      })),
      responses: { ...adminOk('AuditPage'), ...adminError([400, 401, 503]) },
    },
  },
  '/admin/overview': {
    get: {
      ...secured,
      summary: "Ceremonies and failures per application over the last hour (this instance's own counts)",
      responses: { ...adminOk('Overview'), ...adminError([401]) },
    },
  },
  '/admin/metadata/reload': {
    post: {
      ...secured,
      summary: 'Read every metadata BLOB again and use those that verify (also SIGHUP and the periodic file check)',
      description:
        '200 when every BLOB verified and is in use; 422 METADATA_RELOAD_FAILED when one did not (its previous BLOB stays in use), with the same report.',
      responses: {
        ...adminOk('MetadataReload'),
        '422': {
          description: 'A BLOB was not taken (see problems and applications[].error); the previous one stays in use',
          content: jsonContent(ref('MetadataReloadFailed')),
        },
        ...adminError([401, 503]),
      },
    },
  },
  '/admin/audit/export': {
    get: {
      ...secured,
      summary: 'Export the audit log as JSON lines (same filters)',
      responses: {
        '200': {
          description: 'One AuditEvent per line',
          content: { 'application/x-ndjson': { schema: { type: 'string' } } },
        },
        ...adminError([400, 401, 503]),
      },
    },
  },
  ...WEBHOOK_PATHS,
  ...RELAY_SECRET_PATHS,
};
