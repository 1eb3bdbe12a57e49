// Webhooks (issue 27; docs/admin.md "Webhooks"): an application's webhook as the config file writes it and
// the admin API takes it, as the admin API shows it, and the outbox's dead letters (the event types and
// their data: webhook-events.ts).
import { integer, opt, section } from './config-keys.js';
import { Type } from './typebox.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.js';
import { dateTime, literals, nullable } from './values.js';

/** Every event type a webhook may receive: the catalogue's (webhook-events.ts). */
export { WEBHOOK_EVENT_TYPES };
export const WebhookEventTypeSchema = literals(WEBHOOK_EVENT_TYPES);

/** A webhook secret as written: the Standard Webhooks form, or the name of an environment variable holding one. */
export const WEBHOOK_SECRET_PATTERN = '^(whsec_[A-Za-z0-9+/]{22,}={0,2}|env:[A-Za-z_][A-Za-z0-9_]{0,127})$';

const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed: an https:// URL to a public address (http:// only to 127.0.0.1, ::1 or localhost with webhookDelivery.allowLoopbackHttp; a non-public address only with webhookDelivery.allowPrivateAddresses).',
});
const events = Type.Array(WebhookEventTypeSchema, {
  minItems: 1,
  uniqueItems: true,
  description: 'The event types this webhook receives; absent: all.',
});

/** `applications[].webhooks[]` of the config file. */
export const WebhookConfigSchema = Type.Object(
  {
    url,
    secret: Type.String({
      pattern: WEBHOOK_SECRET_PATTERN,
      description:
        'The signing secret: `whsec_<base64 of at least 16 random bytes>` (Standard Webhooks), or `env:<NAME>`, an environment variable holding one.',
    }),
    events: Type.Optional(events),
  },
  { additionalProperties: false, description: 'A webhook: signed events POSTed to `url` (Standard Webhooks).' },
);

/** The admin API's body to add a webhook: the secret is generated and answered once. */
export const WebhookInputSchema = Type.Object(
  { url, events: Type.Optional(events) },
  { additionalProperties: false, description: 'A webhook to add; its secret is generated and answered once.' },
);

/** The admin API's body to change a webhook it added: its URL, its event types (null: all), or both. */
export const WebhookUpdateSchema = Type.Object(
  { url: Type.Optional(url), events: Type.Optional(nullable(events, 'null: all event types.')) },
  {
    additionalProperties: false,
    minProperties: 1,
    detail: 'must give url, events or both',
    description: "A webhook's new URL or event types (null: all); its id and secret stay.",
  },
);

/** A webhook as the admin API shows it: never its secret. */
export const WebhookSchema = Type.Object(
  {
    id: Type.String({ description: "`wh_…`; the config file's webhooks have ids derived from their URL." }),
    clientId: Type.String(),
    url: Type.String(),
    events: nullable(Type.Array(WebhookEventTypeSchema), 'The event types it receives; null: all.'),
    source: Type.Union([Type.Literal('config'), Type.Literal('admin')], {
      description: '`config`: from the config file (change it there); `admin`: added by the admin API.',
    }),
    createdAt: nullable(dateTime(), "When the admin API added it; null for the config file's."),
  },
  { additionalProperties: false },
);

export const WebhookListSchema = Type.Object({ webhooks: Type.Array(WebhookSchema) }, { additionalProperties: false });

/** The answer to adding a webhook: the only time its secret is shown. */
export const WebhookCreatedSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({ description: 'The signing secret, `whsec_…`: shown only in this answer.' }),
  },
  { additionalProperties: false },
);

/** A message the outbox gave up on after its last attempt. */
export const DeadLetterSchema = Type.Object(
  {
    id: Type.String({ description: 'The message id (the `webhook-id` header).' }),
    clientId: Type.String(),
    webhookId: Type.String(),
    type: WebhookEventTypeSchema,
    attempts: Type.Integer({ minimum: 0 }),
    lastError: nullable(
      Type.String(),
      "What the last attempt got, in the service's words: `HTTP <status>`, a network error code, a timeout, or why its destination was refused (never text the receiver sent).",
    ),
    createdAt: dateTime(),
    deadAt: dateTime(),
    body: Type.String({ description: 'The exact JSON body the attempts POSTed.' }),
  },
  { additionalProperties: false },
);

export const DeadLetterPageSchema = Type.Object(
  {
    deadLetters: Type.Array(DeadLetterSchema),
    next: nullable(Type.String(), 'Pass as `after` for the next page; null: none.'),
  },
  { additionalProperties: false },
);

export const CompromisedAuthenticatorsSchema = literals(['refuse', 'flag'] as const);

/** Top-level `webhookDelivery` of the config file. */
export const WebhookDeliverySchema = section(
  {
    allowLoopbackHttp: opt(
      Type.Boolean({
        default: false,
        description:
          'Accept webhook URLs `http://` to `127.0.0.1`, `[::1]` or `localhost` (tests, development). Otherwise every webhook URL must be `https://`.',
      }),
    ),
    allowPrivateAddresses: opt(
      Type.Boolean({
        default: false,
        description:
          'Let webhooks reach hosts that are, or resolve to, loopback, private, link-local, unique-local or other non-public addresses (tests, a receiver on your own network). Otherwise such a URL is refused when added and at every delivery (`docs/admin.md`, "Which addresses a webhook may reach").',
      }),
    ),
    maxAttempts: opt(
      integer(1, 100, {
        default: 15,
        description:
          'Attempts before a message becomes a dead letter. Retries wait 5 s, 15 s, 30 s, 1 min, 2 min, 5 min, then 10 min each: 15 attempts span about 1.5 hours.',
      }),
    ),
    timeoutMs: opt(
      integer(100, 60_000, {
        default: 10_000,
        description: "Bound on one delivery attempt (connect, send, the answer's status), in milliseconds.",
      }),
    ),
  },
  {
    description:
      'How webhook events are delivered (`docs/operations.md`, "Webhooks: delivery, retries, dead letters"; the events: `docs/admin.md`, "Webhooks").',
  },
);

export const WebhookDeletedSchema = Type.Object(
  {
    deleted: Type.Literal(true),
    discarded: Type.Integer({ minimum: 0, description: 'Messages for it not delivered yet, dropped with it.' }),
  },
  { additionalProperties: false },
);
export const DeadLetterResentSchema = Type.Object({ resent: Type.Literal(true) }, { additionalProperties: false });

/** `applications[].webhooks`. */
export const WebhooksField = Type.Array(WebhookConfigSchema, {
  maxItems: 16,
  uniqueItems: true,
  defaultText: '`[]`',
  description:
    'Webhooks that receive this application\'s signed events (`docs/admin.md`, "Webhooks"); at most 16. `url`: `https://…` to a public address (`http://` only to a loopback host with `webhookDelivery.allowLoopbackHttp`; a host that is or resolves to a non-public address only with `webhookDelivery.allowPrivateAddresses`; shown with its query as `?…`). `secret`: `whsec_<base64 of at least 16 random bytes>` (Standard Webhooks), or `env:<NAME>`, an environment variable holding one (read once at start; unset or malformed: the service does not start). `events`: the event types it receives (absent: all). The admin API adds more (`POST /admin/applications/{clientId}/webhooks`) and never shows a literal secret.',
});
/** `applications[].compromisedAuthenticators`. */
export const CompromisedAuthenticatorsField = Type.Union(CompromisedAuthenticatorsSchema.anyOf, {
  defaultText: '`"flag"`',
  description:
    'The next sign-in with a passkey whose authenticator model FIDO metadata marked compromised or revoked (`docs/attestation.md`, "Compromised authenticators"): `flag` accepts it with `authenticatorStatus` in the result and the audit log; `refuse` fails it with `AUTHENTICATOR_STATUS_NOT_ACCEPTED`. `attestation.enforceStatusAtAuthentication: true` counts as `refuse`.',
});
