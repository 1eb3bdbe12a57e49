// The admin listener's relay-secret paths in the OpenAPI document (admin/relay-secret-routes.ts serves them)
// and their components.
import {
  RelaySecretCreatedSchema,
  RelaySecretInputSchema,
  RelaySecretListSchema,
  RelaySecretRevokedSchema,
  RelaySecretSchema,
} from '../schemas/relay-secrets.js';
import { jsonContent, ref } from './openapi-admin-refs.js';

export const RELAY_SECRET_SCHEMAS = {
  RelaySecret: RelaySecretSchema,
  RelaySecretList: RelaySecretListSchema,
  RelaySecretInput: RelaySecretInputSchema,
  RelaySecretCreated: RelaySecretCreatedSchema,
  RelaySecretRevoked: RelaySecretRevokedSchema,
};

const failure = (statuses: readonly number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: 'Failure', content: jsonContent(ref('AdminError')) }]),
  );
const ok = (schema: string, status = 200) => ({
  [String(status)]: { description: 'OK', content: jsonContent(ref(schema)) },
});
const clientIdParam = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
const secured = { security: [{ adminToken: [] }], tags: ['admin'] };

export const RELAY_SECRET_PATHS = {
  '/admin/applications/{clientId}/relay-secrets': {
    get: {
      ...secured,
      summary: "The application's relay secrets (the config file's and those created here): never a secret or a hash",
      parameters: [clientIdParam],
      responses: { ...ok('RelaySecretList'), ...failure([401, 404, 503]) },
    },
    post: {
      ...secured,
      summary: 'Create a relay secret (32 random bytes); it is in this answer only, its SHA-256 is kept',
      parameters: [clientIdParam],
      requestBody: { required: true, content: jsonContent(ref('RelaySecretInput')) },
      responses: { ...ok('RelaySecretCreated', 201), ...failure([400, 401, 404, 409, 413, 415, 503]) },
    },
  },
  '/admin/applications/{clientId}/relay-secrets/{id}': {
    delete: {
      ...secured,
      summary: 'Revoke a relay secret created here (relays that send it are refused); 409 for the config file’s',
      parameters: [clientIdParam, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { ...ok('RelaySecretRevoked'), ...failure([401, 404, 409, 503]) },
    },
  },
};
