// The admin API's webhooks and what they deliver (docs/admin.md "Webhooks"): an application's webhooks
// (list; add, with a generated secret answered once; change its URL or events; delete), the dead letters
// (list, send again) and the credentials whose authenticator model FIDO metadata marked. Every change is
// audited.
import type { AuditLog } from '../audit/log.js';
import type { ApplicationStore } from '../stores/types.js';
import type { Shape } from '../schemas/typebox.js';
import type { DeadLetterPageSchema, WebhookCreatedSchema, WebhookSchema } from '../schemas/webhooks.js';
import { WEBHOOK_EVENT_TYPES } from '../schemas/webhooks.js';
import type { CredentialPage } from '../schemas/admin.js';
import type { CredentialStore, OutboxDelivery, WebhookEndpoint } from '../stores/types.js';
import type { Runtime } from '../util/runtime.js';
import { redactedUrl, type WebhookUrlRules, webhookUrlProblem } from '../config/webhooks.js';
import { addedDestinationProblem, type ResolveHost, systemResolveHost } from '../webhooks/destination.js';
import { endpointsOf } from '../webhooks/events.js';
import { newSecret } from '../webhooks/signature.js';
import { asObject } from './application-body.js';
import { type Actor, audited } from './audited.js';
import { AdminError } from './errors.js';
import { credentialView } from './views.js';

export type WebhookView = Shape<typeof WebhookSchema>;
export type WebhookCreated = Shape<typeof WebhookCreatedSchema>;
export type DeadLetterPage = Shape<typeof DeadLetterPageSchema>;

export interface WebhookAdminDeps {
  readonly applications: ApplicationStore;
  readonly credentials: CredentialStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  /** `webhookDelivery`'s URL rules. */
  readonly urlRules: WebhookUrlRules;
  /** Resolves a URL's host when added (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
  /** Told after a webhook is added or deleted, so the directory's cached application drops its old list. */
  readonly onChange?: (clientId: string) => void;
}

function webhookView(endpoint: WebhookEndpoint): WebhookView {
  return {
    id: endpoint.id,
    clientId: endpoint.clientId,
    // Its query (where receivers often put a token) is never shown again.
    url: redactedUrl(endpoint.url),
    events: endpoint.events === null ? null : ([...endpoint.events] as WebhookView['events'] & {}),
    source: endpoint.source,
    createdAt: endpoint.createdAt === null ? null : new Date(endpoint.createdAt).toISOString(),
  };
}

function deadLetterView(message: OutboxDelivery): DeadLetterPage['deadLetters'][number] {
  return {
    id: message.id,
    clientId: message.clientId,
    webhookId: message.webhookId,
    type: message.type as DeadLetterPage['deadLetters'][number]['type'],
    attempts: message.attempts,
    lastError: message.lastError,
    createdAt: new Date(message.createdAt).toISOString(),
    deadAt: new Date(message.deadAt ?? message.nextAttemptAt).toISOString(),
    body: message.body,
  };
}

export class WebhookAdmin {
  constructor(private readonly deps: WebhookAdminDeps) {}

  async list(clientId: string): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: (await this.#endpoints(clientId)).map(webhookView) };
  }

  /** `body`: `{url, events?}`; the secret is generated and answered only here. */
  create(actor: Actor, clientId: string, body: unknown): Promise<WebhookCreated> {
    return audited(this.deps.audit, actor, 'webhook.create', { clientId }, async (note) => {
      await this.#endpoints(clientId);
      const { url, events } = await this.#read(body, 'create');
      const { runtime } = this.deps;
      const webhook = {
        id: `wh_${runtime.randomBytes(12).toString('hex')}`,
        clientId,
        url: url as string,
        secret: newSecret(runtime.randomBytes),
        events: events ?? null,
        createdAt: runtime.now(),
      };
      await this.deps.credentials.webhooks.create(webhook);
      this.deps.onChange?.(clientId);
      note({ details: { webhookId: webhook.id, url: redactedUrl(webhook.url) } });
      return { ...webhookView({ ...webhook, source: 'admin' }), secret: webhook.secret };
    });
  }

  /** `body`: `{url?, events?}` (`events: null`: all); the id and the secret stay. */
  update(actor: Actor, clientId: string, id: string, body: unknown): Promise<WebhookView> {
    return audited(this.deps.audit, actor, 'webhook.update', { clientId, target: id }, async (note) => {
      const endpoint = (await this.#endpoints(clientId)).find((e) => e.id === id);
      if (endpoint === undefined) throw new AdminError('WEBHOOK_NOT_FOUND');
      if (endpoint.source === 'config') throw new AdminError('WEBHOOK_FROM_CONFIG');
      const changes = await this.#read(body, 'update');
      const next = {
        url: changes.url ?? endpoint.url,
        events: changes.events === undefined ? endpoint.events : changes.events,
      };
      if (!(await this.deps.credentials.webhooks.update(clientId, id, next))) throw new AdminError('WEBHOOK_NOT_FOUND');
      this.deps.onChange?.(clientId);
      note({ details: { changed: Object.keys(changes).join(',') } });
      return webhookView({ ...endpoint, ...next });
    });
  }

  /**
   * The checked fields of a create or update body (INVALID_REQUEST with every problem). A URL whose form
   * passes is then checked for where it leads (its host resolved: webhooks/destination.ts).
   */
  async #read(body: unknown, kind: 'create' | 'update'): Promise<{ url?: string; events?: string[] | null }> {
    const raw = asObject(body);
    const problems: string[] = [];
    for (const key of Object.keys(raw))
      if (key !== 'url' && key !== 'events') problems.push(`${key}: unknown (url and events only)`);
    if (kind === 'update' && raw.url === undefined && raw.events === undefined)
      problems.push('url, events: give at least one');
    const url = raw.url;
    if (url !== undefined || kind === 'create') {
      if (typeof url !== 'string' || url.length > 2048) problems.push('url: an https:// URL');
      else {
        const problem =
          webhookUrlProblem(url, this.deps.urlRules) ??
          (await addedDestinationProblem(url, {
            allowPrivateAddresses: this.deps.urlRules.allowPrivateAddresses,
            resolve: this.deps.resolveHost ?? systemResolveHost,
          }));
        if (problem !== undefined) problems.push(`url: ${problem}`);
      }
    }
    const events = raw.events;
    const known: readonly string[] = WEBHOOK_EVENT_TYPES;
    const allowed = events === undefined || (events === null && kind === 'update');
    if (
      !allowed &&
      !(
        Array.isArray(events) &&
        events.length > 0 &&
        events.every((e) => typeof e === 'string' && known.includes(e)) &&
        new Set(events).size === events.length
      )
    )
      problems.push(
        `events: a non-empty list of distinct event types (${WEBHOOK_EVENT_TYPES.join(', ')})${kind === 'update' ? ', or null for all' : ''}`,
      );
    if (problems.length > 0) throw new AdminError('INVALID_REQUEST', undefined, problems);
    return {
      ...(url === undefined ? {} : { url: url as string }),
      ...(events === undefined ? {} : { events: events as string[] | null }),
    };
  }

  delete(actor: Actor, clientId: string, id: string): Promise<{ readonly deleted: true; readonly discarded: number }> {
    return audited(this.deps.audit, actor, 'webhook.delete', { clientId, target: id }, async (note) => {
      const endpoint = (await this.#endpoints(clientId)).find((e) => e.id === id);
      if (endpoint === undefined) throw new AdminError('WEBHOOK_NOT_FOUND');
      if (endpoint.source === 'config') throw new AdminError('WEBHOOK_FROM_CONFIG');
      if (!(await this.deps.credentials.webhooks.delete(clientId, id))) throw new AdminError('WEBHOOK_NOT_FOUND');
      // What it had not received yet goes with it.
      const discarded = await this.deps.credentials.outbox.discard(id);
      this.deps.onChange?.(clientId);
      note({ details: { discarded } });
      return { deleted: true, discarded };
    });
  }

  async deadLetters(filter: { clientId?: string; limit?: number; after?: string }): Promise<DeadLetterPage> {
    const limit = Math.min(Math.max(1, filter.limit ?? 100), 1000);
    const page = await this.deps.credentials.outbox.listDead({
      limit,
      ...(filter.clientId === undefined ? {} : { clientId: filter.clientId }),
      ...(filter.after === undefined ? {} : { after: filter.after }),
    });
    return {
      deadLetters: page.map(deadLetterView),
      next: page.length === limit ? page[page.length - 1]!.id : null,
    };
  }

  resend(actor: Actor, id: string): Promise<{ readonly resent: true }> {
    return audited(this.deps.audit, actor, 'webhook.resend', { target: id }, async () => {
      if (!(await this.deps.credentials.outbox.resend(id, this.deps.runtime.now())))
        throw new AdminError('DEAD_LETTER_NOT_FOUND');
      return { resent: true };
    });
  }

  async marked(clientId: string, page: { limit?: number; after?: string }): Promise<CredentialPage> {
    await this.#record(clientId);
    const limit = Math.min(Math.max(1, page.limit ?? 100), 1000);
    const records = await this.deps.credentials.listMarked(
      clientId,
      page.after === undefined ? { limit } : { limit, after: page.after },
    );
    return {
      credentials: records.map((record) => credentialView(record)),
      next: records.length === limit ? records[records.length - 1]!.credentialId : null,
    };
  }

  async #record(clientId: string) {
    const record = await this.deps.applications.get(clientId);
    if (!record) throw new AdminError('APPLICATION_NOT_FOUND');
    return record;
  }

  async #endpoints(clientId: string): Promise<WebhookEndpoint[]> {
    const record = await this.#record(clientId);
    return endpointsOf(record.config, await this.deps.credentials.webhooks.list(clientId));
  }
}
