// The admin API's webhooks and what they deliver (docs/admin.md "Webhooks"): an application's webhooks
// (list; add, with a generated secret answered once; change its URL or events; delete), the dead letters
// (list, send again) and the credentials whose authenticator model FIDO metadata marked. Every change is
// audited.
import type { AuditLog } from '../audit/log.js';
import type { ApplicationStore } from '../stores/types.js';
import type { Shape } from '../schemas/typebox.js';
import type {
  DeadLetterPageSchema,
  WebhookCreatedSchema,
  WebhookInputSchema,
  WebhookSchema,
  WebhookUpdateSchema,
} from '../schemas/webhook-shapes.js';
import type { CredentialPage } from '../schemas/admin.js';
import type { CredentialStore, OutboxDelivery, WebhookEndpoint } from '../stores/types.js';
import type { Runtime } from '../util/runtime.js';
import { redactedUrl, type WebhookUrlRules, webhookUrlProblem } from '../config/webhook-urls.js';
import { addedDestinationProblem, type ResolveHost, systemResolveHost } from '../webhooks/destination.js';
import { endpointsOf } from '../webhooks/events.js';
import type { WebhookSecretBox } from '../webhooks/secret-box.js';
import { newSecret } from '../webhooks/signature.js';
import { isPlainObject } from './application-body.js';
import { type Actor, audited } from './audited.js';
import { AdminError } from './errors.js';
import { credentialView } from './views.js';

export type WebhookView = Shape<typeof WebhookSchema>;
export type WebhookCreated = Shape<typeof WebhookCreatedSchema>;
export type DeadLetterPage = Shape<typeof DeadLetterPageSchema>;
export type WebhookInput = Shape<typeof WebhookInputSchema>;
export type WebhookUpdate = Shape<typeof WebhookUpdateSchema>;

export interface WebhookAdminDeps {
  readonly applications: ApplicationStore;
  readonly credentials: CredentialStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  /** `webhookDelivery`'s URL rules. */
  readonly urlRules: WebhookUrlRules;
  /** Resolves a URL's host when added (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
  /** Seals a new webhook's secret before it is stored (webhooks/secret-box.ts). */
  readonly secretBox: WebhookSecretBox;
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

  /** `input` checked by WebhookInputSchema and `urlProblems`; the secret is generated and answered only here. */
  create(actor: Actor, clientId: string, input: WebhookInput): Promise<WebhookCreated> {
    return audited(this.deps.audit, actor, 'webhook.create', { clientId }, async (note) => {
      await this.#endpoints(clientId);
      const { url, events } = input;
      const { runtime } = this.deps;
      const id = `wh_${runtime.randomBytes(12).toString('hex')}`;
      const secret = newSecret(runtime.randomBytes);
      const webhook = {
        id,
        clientId,
        url,
        // Stored sealed; the clear secret is in this answer only.
        secret: this.deps.secretBox.seal({ clientId, id }, secret),
        events: events === undefined ? null : [...events],
        createdAt: runtime.now(),
      };
      await this.deps.credentials.webhooks.create(webhook);
      this.deps.onChange?.(clientId);
      note({ details: { webhookId: webhook.id, url: redactedUrl(webhook.url) } });
      return { ...webhookView({ ...webhook, source: 'admin' }), secret };
    });
  }

  /** `changes` checked by WebhookUpdateSchema and `urlProblems` (`events: null`: all); the id and the secret stay. */
  update(actor: Actor, clientId: string, id: string, changes: WebhookUpdate): Promise<WebhookView> {
    return audited(this.deps.audit, actor, 'webhook.update', { clientId, target: id }, async (note) => {
      const endpoint = (await this.#endpoints(clientId)).find((e) => e.id === id);
      if (endpoint === undefined) throw new AdminError('WEBHOOK_NOT_FOUND');
      if (endpoint.source === 'config') throw new AdminError('WEBHOOK_FROM_CONFIG');
      const next = {
        url: changes.url ?? endpoint.url,
        events: changes.events === undefined ? endpoint.events : changes.events && [...changes.events],
      };
      if (!(await this.deps.credentials.webhooks.update(clientId, id, next))) throw new AdminError('WEBHOOK_NOT_FOUND');
      this.deps.onChange?.(clientId);
      note({ details: { changed: Object.keys(changes).join(',') } });
      return webhookView({ ...endpoint, ...next });
    });
  }

  /**
   * The problems of a body's URL beyond its shape: the config file's rule (https, http to a loopback host
   * when allowed), then where it leads (its host resolved: webhooks/destination.ts).
   */
  async urlProblems(body: unknown): Promise<string[]> {
    const url = isPlainObject(body) ? body.url : undefined;
    if (typeof url !== 'string') return [];
    const problem =
      webhookUrlProblem(url, this.deps.urlRules) ??
      (await addedDestinationProblem(url, {
        allowPrivateAddresses: this.deps.urlRules.allowPrivateAddresses,
        resolve: this.deps.resolveHost ?? systemResolveHost,
      }));
    return problem === undefined ? [] : [`url: ${problem}`];
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
