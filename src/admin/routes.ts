// Long: one table, one row per endpoint of the admin listener; split, the rows would be looked for in many files.
// The admin listener's one route table: method, path, body schema, answer schema and handler of every
// endpoint. The router (router.ts), the body checks and the OpenAPI document (openapi-admin.ts) all read it.
// To add an endpoint: its schemas in src/schemas/, their component names in ADMIN_COMPONENTS, a row here,
// and the action it calls (docs/architecture.md "Adding an admin endpoint").
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import { toJsonLines } from '../audit/events.js';
import type { AuditLog } from '../audit/log.js';
import { EXPOSITION_CONTENT_TYPE, type MetricsRegistry } from '../metrics/registry.js';
import type { Readiness } from '../runtime/readiness.js';
import * as admin from '../schemas/admin.js';
import * as applications from '../schemas/applications.js';
import * as secrets from '../schemas/relay-secret-shapes.js';
import * as transfer from '../schemas/transfer.js';
import * as hooks from '../schemas/webhook-shapes.js';
import { EXPORT_FORMATS, IMPORT_FORMATS, type ExportFormat } from '../transfer/record.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import type { AdminActions } from './actions.js';
import { type Answer, json } from './answers.js';
import type { ConsoleFiles } from './console.js';
import { reloadMetadata } from './metadata-reload.js';
import { auditQuery, credentialFilter, exportQuery, importQuery, userFilter } from './params.js';
import type { RelaySecretAdmin } from './relay-secret-admin.js';
import type { AdminRoute, QueryParameter } from './router.js';
import { streamedAnswer } from './streams.js';
import type { AdminTokenStore } from './tokens.js';
import type { WebhookAdmin, WebhookInput, WebhookUpdate } from './webhook-admin.js';

/** The admin listener's schemas by their OpenAPI component name (each body and answer a route names). */
export const ADMIN_COMPONENTS = {
  Health: admin.HealthSchema,
  Readiness: admin.ReadinessSchema,
  AttestationPolicy: applications.AttestationPolicySchema,
  ResolvedAttestationPolicy: applications.ResolvedAttestationPolicySchema,
  ApplicationInput: applications.ApplicationInputSchema,
  Application: applications.ApplicationSchema,
  ApplicationList: admin.ApplicationListSchema,
  ApplicationDeleted: admin.ApplicationDeletedSchema,
  Credential: admin.CredentialSchema,
  CredentialPage: admin.CredentialPageSchema,
  CredentialRename: admin.CredentialRenameSchema,
  CredentialDeleted: admin.CredentialDeletedSchema,
  UserCredentialsDeleted: admin.UserCredentialsDeletedSchema,
  AuditEvent: admin.AuditEventSchema,
  AuditPage: admin.AuditPageSchema,
  MetadataReload: admin.MetadataReloadSchema,
  MetadataReloadFailed: admin.MetadataReloadFailedSchema,
  Overview: admin.OverviewSchema,
  WebhookInput: hooks.WebhookInputSchema,
  WebhookUpdate: hooks.WebhookUpdateSchema,
  Webhook: hooks.WebhookSchema,
  WebhookList: hooks.WebhookListSchema,
  WebhookCreated: hooks.WebhookCreatedSchema,
  WebhookDeleted: hooks.WebhookDeletedSchema,
  DeadLetter: hooks.DeadLetterSchema,
  DeadLetterPage: hooks.DeadLetterPageSchema,
  DeadLetterResent: hooks.DeadLetterResentSchema,
  RelaySecret: secrets.RelaySecretSchema,
  RelaySecretList: secrets.RelaySecretListSchema,
  RelaySecretInput: secrets.RelaySecretInputSchema,
  RelaySecretCreated: secrets.RelaySecretCreatedSchema,
  RelaySecretRevoked: secrets.RelaySecretRevokedSchema,
  PostQuantumUsage: admin.PostQuantumUsageSchema,
  ImportReport: transfer.ImportReportSchema,
};
export type AdminComponent = keyof typeof ADMIN_COMPONENTS;

export interface AdminHandlerDeps {
  readonly actions: AdminActions;
  readonly audit: AuditLog;
  readonly tokens: AdminTokenStore;
  readonly readiness: Readiness;
  readonly registry?: MetricsRegistry;
  /** The OpenAPI document served at /openapi.json. */
  readonly openapi?: () => unknown;
  readonly runtime: Runtime;
  readonly log: Logger;
  /** Require an admin token for /metrics too (default false: the listener is private). */
  readonly metricsRequireToken?: boolean;
  /** Largest accepted body (default 64 KiB). */
  readonly bodyBytes?: number;
  /** Largest streamed body, an import's file (default 1 GiB, streams.ts STREAM_BODY_BYTES). */
  readonly streamedBodyBytes?: number;
  /** POST /admin/metadata/reload (absent: that path is not found). */
  readonly reloadMetadata?: () => Promise<MetadataReloadReport>;
  /** GET /admin/overview: the last hour's ceremonies per application (metrics/recent.ts); absent: not found. */
  readonly overview?: () => admin.Overview;
  /** The web console's files under /console/ (default: console/dist of the build, console.ts). */
  readonly console?: ConsoleFiles;
  /** The host the listener is bound to (default 127.0.0.1) and other names it answers for (host.ts). */
  readonly allowedHosts?: readonly string[];
  readonly host?: string;
  /** Webhooks, dead letters and marked credentials (webhook-admin.ts); absent: those paths are not found. */
  readonly webhooks?: WebhookAdmin;
  /** An application's relay secrets (relay-secret-admin.ts); absent: those paths are not found. */
  readonly relaySecrets?: RelaySecretAdmin;
}

export type Route = AdminRoute<AdminHandlerDeps, AdminComponent>;

const q = (name: string, schema: Record<string, unknown> = { type: 'string' }): QueryParameter => ({ name, schema });
const limit = q('limit', { type: 'integer', minimum: 1, maximum: 1000 });
const page = [limit, q('after')];
const user = [q('username'), q('userHandle')];
const webhooks = (deps: AdminHandlerDeps) => deps.webhooks !== undefined;
const relaySecrets = (deps: AdminHandlerDeps) => deps.relaySecrets !== undefined;
const app = '/admin/applications/{clientId}';

/** POST …/{clientId}/<change>: approve, unapprove, disable, enable. */
const stateChange = (change: 'approve' | 'unapprove' | 'disable' | 'enable', summary: string): Route => ({
  method: 'POST',
  path: `${app}/${change}`,
  summary,
  answer: 'Application',
  failures: [401, 404, 409, 503],
  run: (r, d) => d.actions[change](r.actor, r.params.clientId!),
});

/** What an export answers for each `to` format: its media type and its file name's extension. */
const EXPORT_MEDIA: Record<ExportFormat, { readonly type: string; readonly extension: string }> = {
  'passkey-server': { type: 'application/x-ndjson; charset=utf-8', extension: 'jsonl' },
  hanko: { type: 'application/json; charset=utf-8', extension: 'json' },
};

export const ADMIN_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/health',
    open: true,
    head: true,
    summary: 'Liveness',
    answer: 'Health',
    run: () => ({ status: 'ok' }),
  },
  {
    method: 'GET',
    path: '/ready',
    open: true,
    head: true,
    summary: 'Readiness: every backend answers',
    answer: 'Readiness',
    alternative: { status: 503, description: 'Not ready', answer: 'Readiness' },
    run: async (_r, d): Promise<Answer> => {
      const report = await d.readiness.report();
      return json(report.ready ? 200 : 503, { status: report.status, checks: report.checks });
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    open: true,
    token: (d) => d.metricsRequireToken === true,
    when: (d) => d.registry !== undefined,
    summary: 'Prometheus metrics (text format 0.0.4)',
    answer: { contentType: 'text/plain', description: 'OK' },
    run: async (_r, d): Promise<Answer> => ({
      status: 200,
      body: await d.registry!.expose(),
      contentType: EXPOSITION_CONTENT_TYPE,
    }),
  },
  {
    method: 'GET',
    path: '/openapi.json',
    open: true,
    when: (d) => d.openapi !== undefined,
    summary: 'This document',
    answer: { contentType: 'application/json', description: 'OK' },
    run: (_r, d) => json(200, d.openapi!()),
  },
  {
    method: 'GET',
    path: '/admin/applications',
    summary: 'List applications',
    answer: 'ApplicationList',
    failures: [401, 503],
    run: async (_r, d) => ({ applications: await d.actions.listApplications() }),
  },
  {
    method: 'POST',
    path: '/admin/applications',
    summary: 'Create an application (Client ID generated)',
    body: 'ApplicationInput',
    audit: 'application.create',
    answer: 'Application',
    status: 201,
    failures: [400, 401, 409, 413, 415, 503],
    run: (r, d) => d.actions.createApplication(r.actor, r.body),
  },
  {
    method: 'GET',
    path: app,
    summary: 'Show an application',
    answer: 'Application',
    failures: [401, 404, 503],
    run: (r, d) => d.actions.getApplication(r.params.clientId!),
  },
  {
    method: 'PATCH',
    path: app,
    summary: 'Update origins, variants, policy…',
    body: 'ApplicationInput',
    audit: 'application.update',
    answer: 'Application',
    failures: [400, 401, 404, 413, 415, 503],
    run: (r, d) => d.actions.updateApplication(r.actor, r.params.clientId!, r.body),
  },
  {
    method: 'DELETE',
    path: app,
    summary: 'Delete an application and its credentials',
    answer: 'ApplicationDeleted',
    failures: [401, 404, 503],
    run: (r, d) => d.actions.deleteApplication(r.actor, r.params.clientId!),
  },
  stateChange('approve', 'Approve the standard variant for the domain'),
  stateChange('unapprove', 'Withdraw the standard-variant approval'),
  stateChange('disable', 'Disable (the four operations answer CLIENT_ID_UNKNOWN)'),
  stateChange('enable', 'Enable again'),
  {
    method: 'GET',
    path: `${app}/credentials`,
    summary: 'Credentials of a user (username or userHandle), or all of the application page by page',
    query: [...user, ...page],
    answer: 'CredentialPage',
    failures: [400, 401, 404, 503],
    run: (r, d) => d.actions.listCredentials(r.params.clientId!, credentialFilter(r.query)),
  },
  {
    method: 'DELETE',
    path: `${app}/credentials`,
    summary:
      "Delete every credential of one user (username or userHandle is required): a user's data, erased; audited as credential.delete-user",
    query: user,
    answer: 'UserCredentialsDeleted',
    failures: [400, 401, 404, 503],
    run: (r, d) => d.actions.deleteUserCredentials(r.actor, r.params.clientId!, userFilter(r.query)),
  },
  {
    method: 'GET',
    path: `${app}/post-quantum`,
    summary: 'How many users have at least one post-quantum (ML-DSA) credential, to plan a migration',
    answer: 'PostQuantumUsage',
    failures: [401, 404, 503],
    run: (r, d) => d.actions.postQuantumUsage(r.params.clientId!),
  },
  {
    method: 'POST',
    path: `${app}/credentials/import`,
    summary: 'Import passkeys from a file of another server (the body, streamed); audited as credential.import',
    description:
      'The body is the file, read as it arrives (at most 1 GiB; any Content-Type: `from` names the format). Refused records are listed in the report with their line and reason; every other record is imported (docs/migration.md).',
    query: [
      { ...q('from', { type: 'string', enum: [...IMPORT_FORMATS] }), required: true },
      q('dryRun', { type: 'boolean', default: false }),
    ],
    streamed: {
      contentTypes: ['application/x-ndjson', 'application/json', 'text/csv', 'application/octet-stream'],
      description: 'The file in the `from` format',
    },
    answer: 'ImportReport',
    failures: [400, 401, 404, 409, 413, 503],
    run: (r, d) =>
      d.actions.importCredentials(r.actor, r.params.clientId!, { ...importQuery(r.query), input: r.input! }),
  },
  {
    method: 'GET',
    path: `${app}/credentials/export`,
    summary: "Export the application's passkeys (streamed); audited as credential.export",
    description:
      "`to=passkey-server` (default): JSON Lines, one passkey a line (`application/x-ndjson`); `to=hanko`: Hanko's user list (`application/json`). Once the first passkeys are sent, a failure cuts the connection: a body that ends without its last line is incomplete.",
    query: [q('to', { type: 'string', enum: [...EXPORT_FORMATS], default: 'passkey-server' })],
    answer: { contentType: 'application/x-ndjson', description: 'The passkeys in the `to` format' },
    failures: [400, 401, 404, 503],
    run: (r, d) => {
      const to = exportQuery(r.query);
      const media = EXPORT_MEDIA[to as ExportFormat] ?? EXPORT_MEDIA['passkey-server'];
      const file = `${r.params.clientId!.replace(/[^\w.-]/g, '_')}-passkeys.${media.extension}`;
      return streamedAnswer(d.actions.exportCredentials(r.actor, r.params.clientId!, to), media.type, {
        'content-disposition': `attachment; filename="${file}"`,
      });
    },
  },
  {
    method: 'GET',
    path: `${app}/credentials/{credentialId}`,
    summary: 'Show a credential',
    answer: 'Credential',
    failures: [401, 404, 503],
    run: (r, d) => d.actions.getCredential(r.params.clientId!, r.params.credentialId!),
  },
  {
    method: 'PATCH',
    path: `${app}/credentials/{credentialId}`,
    summary: 'Rename a credential',
    body: 'CredentialRename',
    audit: 'credential.rename',
    answer: 'Credential',
    failures: [400, 401, 404, 503],
    run: (r, d) =>
      d.actions.renameCredential(
        r.actor,
        r.params.clientId!,
        r.params.credentialId!,
        (r.body as { nickname: string | null }).nickname,
      ),
  },
  {
    method: 'DELETE',
    path: `${app}/credentials/{credentialId}`,
    summary: 'Delete a credential',
    answer: 'CredentialDeleted',
    failures: [401, 404, 503],
    run: (r, d) => d.actions.deleteCredential(r.actor, r.params.clientId!, r.params.credentialId!),
  },
  {
    method: 'GET',
    path: '/admin/audit',
    summary: 'Read the audit log (oldest first)',
    query: ['since', 'until', 'clientId', 'action', 'actor', 'result', 'after']
      .map((name) => q(name))
      .concat(q('limit', { type: 'integer' })),
    answer: 'AuditPage',
    failures: [400, 401, 503],
    run: async (r, d) => {
      const query = auditQuery(r.query, 100, 1000);
      const events = await d.audit.query({ ...query, limit: query.limit + 1 });
      const shown = events.slice(0, query.limit);
      return { events: shown, next: events.length > query.limit ? shown[shown.length - 1]!.id : null };
    },
  },
  {
    method: 'GET',
    path: '/admin/overview',
    when: (d) => d.overview !== undefined,
    summary: "Ceremonies and failures per application over the last hour (this instance's own counts)",
    answer: 'Overview',
    failures: [401],
    run: (_r, d) => d.overview!(),
  },
  {
    method: 'POST',
    path: '/admin/metadata/reload',
    when: (d) => d.reloadMetadata !== undefined,
    summary: 'Read every metadata BLOB again and use those that verify (also SIGHUP and the periodic file check)',
    description:
      '200 when every BLOB verified and is in use; 422 METADATA_RELOAD_FAILED when one did not (its previous BLOB stays in use), with the same report.',
    answer: 'MetadataReload',
    alternative: {
      status: 422,
      description: 'A BLOB was not taken (see problems and applications[].error); the previous one stays in use',
      answer: 'MetadataReloadFailed',
    },
    failures: [401, 503],
    run: (r, d) => reloadMetadata(d.reloadMetadata!, d.audit, r.actor),
  },
  {
    method: 'GET',
    path: '/admin/audit/export',
    summary: 'Export the audit log as JSON lines (same filters)',
    answer: { contentType: 'application/x-ndjson', description: 'One AuditEvent per line' },
    failures: [400, 401, 503],
    run: async (r, d): Promise<Answer> => ({
      status: 200,
      body: toJsonLines(await d.audit.query(auditQuery(r.query, 100_000, 100_000))),
      contentType: 'application/x-ndjson; charset=utf-8',
      headers: { 'content-disposition': 'attachment; filename="audit.jsonl"' },
    }),
  },
  {
    method: 'GET',
    path: `${app}/webhooks`,
    when: webhooks,
    summary: "The application's webhooks (the config file's and those added here); never a secret",
    answer: 'WebhookList',
    failures: [401, 404, 503],
    run: (r, d) => d.webhooks!.list(r.params.clientId!),
  },
  {
    method: 'POST',
    path: `${app}/webhooks`,
    when: webhooks,
    summary: 'Add a webhook; its generated secret is in this answer only',
    body: 'WebhookInput',
    check: (body, d) => d.webhooks!.urlProblems(body),
    audit: 'webhook.create',
    answer: 'WebhookCreated',
    status: 201,
    failures: [400, 401, 404, 413, 415, 503],
    run: (r, d) => d.webhooks!.create(r.actor, r.params.clientId!, r.body as WebhookInput),
  },
  {
    method: 'PATCH',
    path: `${app}/webhooks/{webhookId}`,
    when: webhooks,
    summary: 'Change the URL or the event types of a webhook added here; 409 for the config file’s',
    body: 'WebhookUpdate',
    check: (body, d) => d.webhooks!.urlProblems(body),
    audit: 'webhook.update',
    answer: 'Webhook',
    failures: [400, 401, 404, 409, 413, 415, 503],
    run: (r, d) => d.webhooks!.update(r.actor, r.params.clientId!, r.params.webhookId!, r.body as WebhookUpdate),
  },
  {
    method: 'DELETE',
    path: `${app}/webhooks/{webhookId}`,
    when: webhooks,
    summary: 'Delete a webhook added here (with the messages it has not received); 409 for the config file’s',
    answer: 'WebhookDeleted',
    failures: [401, 404, 409, 503],
    run: (r, d) => d.webhooks!.delete(r.actor, r.params.clientId!, r.params.webhookId!),
  },
  {
    method: 'GET',
    path: `${app}/marked-credentials`,
    when: webhooks,
    summary: 'Credentials whose authenticator model FIDO metadata marked compromised or revoked',
    query: page,
    answer: 'CredentialPage',
    failures: [400, 401, 404, 503],
    run: (r, d) => d.webhooks!.marked(r.params.clientId!, credentialFilter(r.query)),
  },
  {
    method: 'GET',
    path: '/admin/webhooks/dead-letters',
    when: webhooks,
    summary: 'Messages given up on after the last attempt (oldest first)',
    query: [q('clientId'), ...page],
    answer: 'DeadLetterPage',
    failures: [400, 401, 503],
    run: (r, d) => {
      const clientId = r.query.get('clientId');
      return d.webhooks!.deadLetters({ ...credentialFilter(r.query), ...(clientId ? { clientId } : {}) });
    },
  },
  {
    method: 'POST',
    path: '/admin/webhooks/dead-letters/{id}/resend',
    when: webhooks,
    summary: 'Send a dead letter again (its attempts start over)',
    answer: 'DeadLetterResent',
    failures: [401, 404, 503],
    run: (r, d) => d.webhooks!.resend(r.actor, r.params.id!),
  },
  {
    method: 'GET',
    path: `${app}/relay-secrets`,
    when: relaySecrets,
    summary: "The application's relay secrets (the config file's and those created here): never a secret or a hash",
    answer: 'RelaySecretList',
    failures: [401, 404, 503],
    run: (r, d) => d.relaySecrets!.list(r.params.clientId!),
  },
  {
    method: 'POST',
    path: `${app}/relay-secrets`,
    when: relaySecrets,
    summary: 'Create a relay secret (32 random bytes); it is in this answer only, its SHA-256 is kept',
    body: 'RelaySecretInput',
    audit: 'relay-secret.create',
    answer: 'RelaySecretCreated',
    status: 201,
    failures: [400, 401, 404, 409, 413, 415, 503],
    run: (r, d) => d.relaySecrets!.create(r.actor, r.params.clientId!),
  },
  {
    method: 'DELETE',
    path: `${app}/relay-secrets/{id}`,
    when: relaySecrets,
    summary: 'Revoke a relay secret created here (relays that send it are refused); 409 for the config file’s',
    answer: 'RelaySecretRevoked',
    failures: [401, 404, 409, 503],
    run: (r, d) => d.relaySecrets!.revoke(r.actor, r.params.clientId!, r.params.id!),
  },
];
