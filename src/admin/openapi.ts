// The OpenAPI 3.1 document of the service: the four operations and the admin API. Generated: every schema
// in it is a TypeBox schema of src/schemas/ (the same ones that type the code and check the requests), and
// the error-name lists come from the catalogues (ERRORS, ADMIN_ERRORS), so a new name or field appears here
// by itself. The tests check real answers against OPENAPI_SCHEMAS through the document's paths.
import { DEFAULT_LIMITS } from '../schemas/config.js';
import { ERRORS } from '../errors/catalogue.js';
import { ADMIN_ERRORS } from './errors.js';
import { adminPaths, jsonContent, ref } from './openapi-admin.js';
import { ADMIN_COMPONENTS } from './routes.js';
import { jsonSchema, Type, type TSchema } from '../schemas/typebox.js';
import {
  AssertionOptionsAnswerSchema,
  AssertionResultAnswerSchema,
  AttestationOptionsAnswerSchema,
  AttestationResultAnswerSchema,
  AcceptedSignalsSchema,
  AllAcceptedCredentialsSchema,
  AuthenticatorSelectionAnswer,
  CurrentUserDetailsSchema,
  DescriptorSchema,
  failedEnvelopeSchema,
  UnknownCredentialSignalSchema,
} from '../schemas/answers.js';
import {
  AssertionResultRequestSchema,
  AttestationResultRequestSchema,
  assertionOptionsRequestSchema,
  attestationOptionsRequestSchema,
  type RequestLimits,
} from '../schemas/requests.js';
import {
  credentialsDeleteRequestSchema,
  credentialsListRequestSchema,
  credentialsRenameRequestSchema,
  CredentialsDeleteAnswerSchema,
  CredentialsRenameAnswerSchema,
  CredentialsListAnswerSchema,
  OwnCredentialSchema,
} from '../schemas/credentials.js';
import { adminErrorSchemas } from '../schemas/admin.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, webhookBodySchema } from '../schemas/webhook-events.js';

/** The document's components, by name: what the tests check real answers against. */
export function openApiSchemas(limits: RequestLimits = DEFAULT_LIMITS): Readonly<Record<string, TSchema>> {
  return {
    ...failedEnvelopeSchema(Object.keys(ERRORS)),
    AuthenticatorSelection: AuthenticatorSelectionAnswer,
    CredentialDescriptor: DescriptorSchema,
    AttestationOptionsRequest: attestationOptionsRequestSchema(limits),
    AttestationOptionsResponse: AttestationOptionsAnswerSchema,
    AttestationResultRequest: AttestationResultRequestSchema,
    AttestationResultResponse: AttestationResultAnswerSchema,
    AssertionOptionsRequest: assertionOptionsRequestSchema(limits),
    AssertionOptionsResponse: AssertionOptionsAnswerSchema,
    AssertionResultRequest: AssertionResultRequestSchema,
    AssertionResultResponse: AssertionResultAnswerSchema,
    AllAcceptedCredentials: AllAcceptedCredentialsSchema,
    CurrentUserDetails: CurrentUserDetailsSchema,
    AcceptedSignals: AcceptedSignalsSchema,
    UnknownCredentialSignal: UnknownCredentialSignalSchema,
    CredentialsListRequest: credentialsListRequestSchema(limits),
    CredentialsListResponse: CredentialsListAnswerSchema,
    CredentialsDeleteRequest: credentialsDeleteRequestSchema(limits),
    CredentialsDeleteResponse: CredentialsDeleteAnswerSchema,
    CredentialsRenameRequest: credentialsRenameRequestSchema(limits),
    CredentialsRenameResponse: CredentialsRenameAnswerSchema,
    OwnCredential: OwnCredentialSchema,

    ...adminErrorSchemas(Object.keys(ADMIN_ERRORS)),
    ...ADMIN_COMPONENTS,
  };
}

/** Seconds to wait before asking again (429). */
export const RetryAfterSchema = Type.Integer({ minimum: 1 });
/** The scheme a 401 asks for (a relay secret). */
export const WwwAuthenticateSchema = Type.Literal('Bearer realm="passkey-server"');

const serviceHeaders = [
  {
    name: 'User-agent',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^\\S+ AppID: \\S+$' },
    description: 'Exactly `<vendor> AppID: <Client ID>` (the vendor word is configured, default `Vendor`).',
  },
  {
    name: 'origin',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: "Standard variant: required, one of the application's origins. Local variant: not sent.",
  },
  {
    name: 'Authorization',
    in: 'header',
    required: false,
    schema: { type: 'string', pattern: '^Bearer \\S+$' },
    description:
      '`Bearer <relay secret>`: required when the application has relay secrets (docs/api.md "Relay secrets"), checked right after the Client ID and before the body (missing: 401 RELAY_SECRET_MISSING; wrong: 401 RELAY_SECRET_INVALID); ignored otherwise.',
  },
];

function failures(statuses: readonly number[]) {
  const names: Record<number, string> = {
    400: 'Malformed request or failed verification',
    401: 'The application has relay secrets and the request carries none (RELAY_SECRET_MISSING) or a wrong one (RELAY_SECRET_INVALID)',
    403: 'Unknown or disabled Client ID, origin or variant not allowed',
    404: 'No such path',
    405: 'Not POST',
    413: 'Body too large',
    415: 'Not JSON',
    429: 'Rate limited',
    500: 'Unexpected error',
    503: 'A backing store is unreachable',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: names[status] ?? 'Failure',
        content: jsonContent(ref('FailedEnvelope')),
        ...(status === 429
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: jsonSchema(RetryAfterSchema) } } }
          : {}),
        ...(status === 401
          ? {
              headers: {
                'WWW-Authenticate': {
                  description: 'The scheme asked for: the relay secret, as a Bearer token.',
                  schema: jsonSchema(WwwAuthenticateSchema),
                },
              },
            }
          : {}),
      },
    ]),
  );
}

function operation(summary: string, request: string, response: string, description: string, tag = 'ceremonies') {
  return {
    post: {
      summary,
      description,
      tags: [tag],
      parameters: serviceHeaders,
      // No secret for an application without relay secrets; its relay secret for one with.
      security: [{}, { relaySecret: [] }],
      requestBody: { required: true, content: jsonContent(ref(request)) },
      responses: {
        '200': { description: 'Processing succeeded.', content: jsonContent(ref(response)) },
        ...failures([400, 401, 403, 405, 413, 415, 429, 500, 503]),
      },
    },
  };
}

const paths = {
  '/api/attestation/options': operation(
    'Registration challenge',
    'AttestationOptionsRequest',
    'AttestationOptionsResponse',
    'Issues a challenge and the parameters of navigator.credentials.create().',
  ),
  '/api/attestation/result': operation(
    'Registration verification',
    'AttestationResultRequest',
    'AttestationResultResponse',
    'Verifies the attestation (WebAuthn L3 §7.1) and stores the credential (standard) or returns the sealed blob (local).',
  ),
  '/api/assertion/options': operation(
    'Authentication challenge',
    'AssertionOptionsRequest',
    'AssertionOptionsResponse',
    'Issues a challenge and the parameters of navigator.credentials.get().',
  ),
  '/api/assertion/result': operation(
    'Authentication verification',
    'AssertionResultRequest',
    'AssertionResultResponse',
    'Verifies the assertion (WebAuthn L3 §7.2).',
  ),
  '/api/credentials/list': operation(
    "A user's own passkeys",
    'CredentialsListRequest',
    'CredentialsListResponse',
    'Lists the credentials of the user a credentialsToken (from an ok sign-in, or the registration of their first credential, at most 10 minutes old) was issued for. Standard variant only.',
    'own credentials',
  ),
  '/api/credentials/delete': operation(
    "Delete one of a user's own passkeys",
    'CredentialsDeleteRequest',
    'CredentialsDeleteResponse',
    "Deletes one credential of the token's user (another user's, another application's or an unknown id: CREDENTIAL_ID_NOT_FOUND alike), audited as credential.delete-own; answers the credentials left as signals.",
    'own credentials',
  ),
  '/api/credentials/rename': operation(
    "Rename one of a user's own passkeys",
    'CredentialsRenameRequest',
    'CredentialsRenameResponse',
    "Gives one credential of the token's user a nickname (1 to 64 characters after trimming; null clears it; else INVALID_NICKNAME), shown by credentials/list; another user's, another application's or an unknown id: CREDENTIAL_ID_NOT_FOUND alike. Audited as credential.rename-own; webhook passkey.updated.",
    'own credentials',
  ),

  ...adminPaths(),
};

/** The events the service POSTs to an application's webhooks (OpenAPI 3.1 `webhooks`): the catalogue's. */
function eventWebhooks(shared: ReadonlyMap<TSchema, string>) {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: WEBHOOK_EVENTS[type].when,
          description:
            'Signed with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature); docs/admin.md "Webhooks".',
          requestBody: { required: true, content: jsonContent(jsonSchema(webhookBodySchema(type), shared)) },
          responses: { '200': { description: 'Received (any 2xx); anything else is retried, then a dead letter.' } },
        },
      },
    ]),
  );
}

export interface DocumentOptions {
  readonly version?: string;
  /** The configured `limits` (user name and display name lengths bound the options requests). */
  readonly limits?: RequestLimits;
}

/** The OpenAPI 3.1 document (a fresh object each call). */
export function openApiDocument(options: DocumentOptions = {}): Record<string, unknown> {
  const schemas = openApiSchemas(options.limits);
  const shared = new Map(Object.entries(schemas).map(([name, schema]) => [schema, name]));
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
      {
        name: 'own credentials',
        description: "A signed-in user's own passkeys, through the relay, on the service listener.",
      },
      { name: 'operations', description: 'Health, readiness, metrics: on the admin listener.' },
      { name: 'admin', description: 'Administration: on the admin listener, with an admin token.' },
    ],
    paths,
    webhooks: eventWebhooks(shared),
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, jsonSchema(schema, shared)])),
      securitySchemes: {
        relaySecret: {
          type: 'http',
          scheme: 'bearer',
          description:
            "One of the application's relay secrets (the config file's applications[].relaySecrets, or one the admin API or CLI created).",
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'An admin token made with `passkey-server admin token create`.',
        },
      },
    },
  });
}
