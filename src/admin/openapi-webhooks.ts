// The admin listener's webhook paths in the OpenAPI document (admin/webhook-routes.ts serves them) and their
// components.
import {
  DeadLetterPageSchema,
  DeadLetterResentSchema,
  DeadLetterSchema,
  WebhookCreatedSchema,
  WebhookDeletedSchema,
  WebhookInputSchema,
  WebhookListSchema,
  WebhookSchema,
  WebhookUpdateSchema,
} from '../schemas/webhooks.js';
import { jsonContent, ref } from './openapi-admin-refs.js';

/** The components of the webhook paths, by name. */
export const WEBHOOK_SCHEMAS = {
  WebhookInput: WebhookInputSchema,
  WebhookUpdate: WebhookUpdateSchema,
  Webhook: WebhookSchema,
  WebhookList: WebhookListSchema,
  WebhookCreated: WebhookCreatedSchema,
  WebhookDeleted: WebhookDeletedSchema,
  DeadLetter: DeadLetterSchema,
  DeadLetterPage: DeadLetterPageSchema,
  DeadLetterResent: DeadLetterResentSchema,
};

const adminError = (statuses: readonly number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { description: 'Failure', content: jsonContent(ref('AdminError')) }]),
  );
const adminOk = (schema: string, status = 200) => ({
  [String(status)]: { description: 'OK', content: jsonContent(ref(schema)) },
});
const clientIdParam = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
const webhookIdParam = { name: 'webhookId', in: 'path', required: true, schema: { type: 'string' } };
const page = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'after', in: 'query', schema: { type: 'string' } },
];
const secured = { security: [{ adminToken: [] }], tags: ['admin'] };

export const WEBHOOK_PATHS = {
  '/admin/applications/{clientId}/webhooks': {
    get: {
      ...secured,
      summary: "The application's webhooks (the config file's and those added here); never a secret",
      parameters: [clientIdParam],
      responses: { ...adminOk('WebhookList'), ...adminError([401, 404, 503]) },
    },
    post: {
      ...secured,
      summary: 'Add a webhook; its generated secret is in this answer only',
      parameters: [clientIdParam],
      requestBody: { required: true, content: jsonContent(ref('WebhookInput')) },
      responses: { ...adminOk('WebhookCreated', 201), ...adminError([400, 401, 404, 413, 415, 503]) },
    },
  },
  '/admin/applications/{clientId}/webhooks/{webhookId}': {
    patch: {
      ...secured,
      summary: 'Change the URL or the event types of a webhook added here; 409 for the config file’s',
      parameters: [clientIdParam, webhookIdParam],
      requestBody: { required: true, content: jsonContent(ref('WebhookUpdate')) },
      responses: { ...adminOk('Webhook'), ...adminError([400, 401, 404, 409, 413, 415, 503]) },
    },
    delete: {
      ...secured,
      summary: 'Delete a webhook added here (with the messages it has not received); 409 for the config file’s',
      parameters: [clientIdParam, webhookIdParam],
      responses: { ...adminOk('WebhookDeleted'), ...adminError([401, 404, 409, 503]) },
    },
  },
  '/admin/applications/{clientId}/marked-credentials': {
    get: {
      ...secured,
      summary: 'Credentials whose authenticator model FIDO metadata marked compromised or revoked',
      parameters: [clientIdParam, ...page],
      responses: { ...adminOk('CredentialPage'), ...adminError([400, 401, 404, 503]) },
    },
  },
  '/admin/webhooks/dead-letters': {
    get: {
      ...secured,
      summary: 'Messages given up on after the last attempt (oldest first)',
      parameters: [{ name: 'clientId', in: 'query', schema: { type: 'string' } }, ...page],
      responses: { ...adminOk('DeadLetterPage'), ...adminError([400, 401, 503]) },
    },
  },
  '/admin/webhooks/dead-letters/{id}/resend': {
    post: {
      ...secured,
      summary: 'Send a dead letter again (its attempts start over)',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { ...adminOk('DeadLetterResent'), ...adminError([401, 404, 503]) },
    },
  },
};
