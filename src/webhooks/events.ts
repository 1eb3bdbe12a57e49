// Webhook events (docs/admin.md "Webhooks"; each type and its data: schemas/webhook-events.ts): which of an application's webhooks take an event, and the
// messages that carry it, one per webhook, built here and written by the stores with the change they
// report. A message's body is fixed when it is made: `{"type", "timestamp", "data"}` (Standard Webhooks).
// `data` carries the Client ID, the user name and the credential id: the receiver is the IdP itself
// (docs/decisions.md "Webhooks").
import { createHash } from 'node:crypto';
import type { ApplicationConfig } from '../service-config.js';
import type { OutboxMessage, StoredWebhook, WebhookEndpoint } from './types.js';
import type { Runtime } from '../util/runtime.js';
import type { WebhookEventData, WebhookEventType } from '../schemas/webhook-events.js';

export type { WebhookEventType };

/** The id of a config file's webhook: derived from its application and URL, so it is the same at every start. */
export function configWebhookId(clientId: string, url: string): string {
  return `wh_${createHash('sha256').update(`${clientId}\n${url}`).digest('hex').slice(0, 24)}`;
}

/** An application's webhooks: the config file's first, then those the admin API added. */
export function endpointsOf(
  config: Pick<ApplicationConfig, 'clientId' | 'webhooks'>,
  stored: readonly StoredWebhook[],
): WebhookEndpoint[] {
  return [
    ...(config.webhooks ?? []).map((webhook) => ({
      id: configWebhookId(config.clientId, webhook.url),
      clientId: config.clientId,
      url: webhook.url,
      secret: webhook.secret,
      events: webhook.events ?? null,
      source: 'config' as const,
      createdAt: null,
    })),
    ...stored.map((webhook) => ({ ...webhook, source: 'admin' as const })),
  ];
}

/** The facts of a credential (a stored CredentialRecord) every event about it carries. */
export function credentialData(record: {
  readonly clientId: string;
  readonly username: string;
  readonly credentialId: string;
}): { readonly clientId: string; readonly username: string; readonly credentialId: string } {
  return { clientId: record.clientId, username: record.username, credentialId: record.credentialId };
}

/**
 * One message per webhook of the application that takes `type`; none (nothing to write) when no webhook
 * does, so an application without webhooks pays nothing.
 */
export function webhookMessages<T extends WebhookEventType>(
  endpoints: readonly WebhookEndpoint[] | undefined,
  type: T,
  data: WebhookEventData<T>,
  runtime: Pick<Runtime, 'now' | 'randomBytes'>,
): OutboxMessage[] {
  const takers = (endpoints ?? []).filter((e) => e.events === null || e.events.includes(type));
  if (takers.length === 0) return [];
  const createdAt = runtime.now();
  const body = JSON.stringify({ type, timestamp: new Date(createdAt).toISOString(), data });
  return takers.map((endpoint) => ({
    id: `msg_${runtime.randomBytes(16).toString('base64url')}`,
    clientId: endpoint.clientId,
    webhookId: endpoint.id,
    type,
    body,
    createdAt,
  }));
}
