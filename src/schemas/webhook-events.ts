// The webhook events: one catalogue, as src/errors/ is one of error names. Each event type has its name,
// when it is sent, and the schema of its `data`. From here come the event types the config file and the
// admin API accept (schemas/webhook-shapes.ts), the type of each event's data where a message is built
// (webhooks/events.ts), the OpenAPI document's `webhooks` (admin/openapi.ts) and docs/admin.md's table of
// events (scripts/gen-webhook-events-doc.mjs; test/schemas/webhook-events.test.ts keeps it current).
// A new event type: its row here, and the code that sends it.
import { Type, type Shape, type TProperties, type TSchema } from './typebox.js';
import { aaguid, base64url, dateTime, literals, nullable } from './values.js';

/** What every event about a credential carries (the receiver is the IdP itself: docs/decisions.md "Webhooks"). */
const credential = {
  clientId: Type.String(),
  username: Type.String(),
  credentialId: base64url(),
};
const data = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });
const change = <T extends TSchema>(value: T) =>
  Type.Object({ from: value, to: value }, { additionalProperties: false });
const authenticatorStatus = Type.Optional(
  Type.String({ description: 'when FIDO metadata marked its authenticator model, e.g. `REVOKED`' }),
);

export const WEBHOOK_EVENTS = {
  'credential.created': {
    when: 'a passkey registered (standard variant)',
    data: data({
      ...credential,
      aaguid: aaguid(),
      authenticatorName: nullable(Type.String()),
      backupEligible: Type.Boolean(),
      backupState: Type.Boolean(),
      attestationTrusted: Type.Boolean(),
    }),
  },
  'credential.deleted': {
    when: 'deleted by its user (`/api/credentials/delete`) or the admin API',
    data: data({ ...credential, by: literals(['user', 'admin'] as const) }),
  },
  'credential.updated': {
    when: 'its backup state changed at a sign-in, or an administrator renamed it',
    data: data({
      ...credential,
      changes: Type.Union(
        [
          Type.Object({ backupState: change(Type.Boolean()) }, { additionalProperties: false }),
          Type.Object({ name: change(nullable(Type.String())) }, { additionalProperties: false }),
        ],
        { description: '`{"backupState": {from, to}}` or `{"name": {from, to}}`' },
      ),
    }),
  },
  'passkey.updated': {
    when: 'its user renamed it (`POST /api/credentials/rename`)',
    data: data({
      ...credential,
      nickname: nullable(Type.String(), 'its name now; null when cleared'),
      changes: Type.Object(
        { nickname: change(nullable(Type.String())) },
        { additionalProperties: false, description: '`{"nickname": {from, to}}`' },
      ),
      by: Type.Literal('user', { description: 'always `user`' }),
    }),
  },
  'user.deleted': {
    when: 'every passkey of a user erased (`DELETE …/credentials?username=…`); one `credential.deleted` per passkey comes too',
    data: data({
      clientId: credential.clientId,
      username: credential.username,
      credentialIds: Type.Array(base64url(), { description: 'instead of `credentialId`' }),
    }),
  },
  'credentials.imported': {
    when: 'an import of passkeys ran to its end (admin API or CLI, not a dry run): one event per import, never one per passkey',
    data: data({
      clientId: credential.clientId,
      format: Type.String({ description: 'the source format, as `--from` names it' }),
      imported: Type.Integer({ minimum: 0 }),
      skipped: Type.Integer({ minimum: 0 }),
      refused: Type.Integer({ minimum: 0 }),
    }),
  },
  'authentication.succeeded': {
    when: 'a sign-in accepted',
    data: data({ ...credential, userVerified: Type.Boolean(), backupState: Type.Boolean(), authenticatorStatus }),
  },
  'authentication.failed': {
    when: 'only what an operator acts on, after the signature verified: a counter that went back, a policy refusal (backup eligibility), a compromised authenticator',
    data: data({
      ...credential,
      error: Type.String({ description: 'the error name' }),
      reason: literals(['counter-regression', 'policy', 'compromised-authenticator'] as const),
      authenticatorStatus,
    }),
  },
  'authenticator.status-changed': {
    when: 'a metadata load marked the passkey\'s model (`docs/attestation.md`, "Compromised authenticators")',
    data: data({
      ...credential,
      aaguid: aaguid(),
      status: Type.String({ description: 'the FIDO metadata status' }),
      authenticatorName: nullable(Type.String()),
    }),
  },
} as const satisfies Record<string, { readonly when: string; readonly data: TSchema }>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
/** The `data` of an event of type `T`, as its schema says. */
export type WebhookEventData<T extends WebhookEventType> = Shape<(typeof WEBHOOK_EVENTS)[T]['data']>;

/** Every event type a webhook may receive, in the catalogue's order. */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];

/** The body of a delivery of an event of type `type`: `{"type", "timestamp", "data"}` (Standard Webhooks). */
export function webhookBodySchema(type: WebhookEventType) {
  return Type.Object(
    {
      type: Type.Literal(type),
      timestamp: dateTime('When the change was made.'),
      data: WEBHOOK_EVENTS[type].data,
    },
    { additionalProperties: false },
  );
}

/** docs/admin.md's table of events: type, when, and its `data` besides `clientId`, `username`, `credentialId`. */
export function webhookEventsTable(): string {
  const rows = Object.entries(WEBHOOK_EVENTS).map(([type, event]) => {
    const properties = event.data.properties as Record<string, TSchema>;
    const fields = Object.entries(properties)
      .filter(([name]) => !(name in credential))
      .map(([name, schema]) => `\`${name}\`${fieldNote(schema)}`);
    return `| \`${type}\` | ${event.when} | ${fields.join(', ')} |`;
  });
  return ['| `type` | when | `data` besides `clientId`, `username`, `credentialId` |', '|---|---|---|', ...rows].join(
    '\n',
  );
}

function fieldNote(schema: TSchema): string {
  const choices = Array.isArray(schema.anyOf)
    ? (schema.anyOf as TSchema[]).flatMap((s) => (typeof s.const === 'string' ? [`\`${s.const}\``] : []))
    : [];
  if (choices.length > 0 && choices.length === (schema.anyOf as unknown[]).length) return `: ${choices.join(' or ')}`;
  return typeof schema.description === 'string' ? ` (${schema.description})` : '';
}

/** `doc` with its `<!-- generated: webhook-events -->` … `<!-- end generated -->` region holding the table. */
export function withWebhookEventsTable(doc: string): string {
  const open = '<!-- generated: webhook-events (scripts/gen-webhook-events-doc.mjs) -->';
  const from = doc.indexOf(open);
  const to = doc.indexOf('<!-- end generated -->', from);
  if (from < 0 || to < 0) throw new Error(`docs/admin.md has no region ${open}`);
  return `${doc.slice(0, from + open.length)}\n${webhookEventsTable()}\n${doc.slice(to)}`;
}
