// The webhook outbox and the admin API's webhooks in process memory (the memory credential store's, for
// tests and a single instance that keeps nothing across a restart). Each check-then-change runs without an
// `await` in between, so it is atomic within the process, as the SQL backends' transactions are.
import type {
  OutboxCounts,
  OutboxDelivery,
  OutboxMessage,
  StoredWebhook,
  WebhookChanges,
  WebhookOutbox,
  WebhookStore,
} from '../types.js';

interface Held extends OutboxDelivery {
  readonly owner: string | null;
  readonly leaseUntil: number;
}

export class MemoryOutbox implements WebhookOutbox {
  readonly #messages = new Map<string, Held>();

  /** Synchronous, for the memory credential store to write with its change. */
  add(messages: readonly OutboxMessage[]): void {
    for (const message of messages) {
      if (this.#messages.has(message.id)) continue;
      this.#messages.set(message.id, {
        ...message,
        attempts: 0,
        nextAttemptAt: message.createdAt,
        lastError: null,
        deadAt: null,
        owner: null,
        leaseUntil: 0,
      });
    }
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<void> {
    this.add(messages);
  }

  async lease(owner: string, now: number, leaseMs: number, limit: number): Promise<OutboxDelivery[]> {
    const due = [...this.#messages.values()]
      .filter((m) => m.deadAt === null && m.nextAttemptAt <= now && m.leaseUntil <= now)
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1))
      .slice(0, Math.max(0, limit));
    for (const message of due) this.#messages.set(message.id, { ...message, owner, leaseUntil: now + leaseMs });
    return due.map(plain);
  }

  async delivered(id: string, owner: string): Promise<void> {
    if (this.#messages.get(id)?.owner === owner) this.#messages.delete(id);
  }

  async failed(
    id: string,
    owner: string,
    outcome: { readonly attempts: number; readonly at: number; readonly error: string; readonly dead: boolean },
  ): Promise<void> {
    const held = this.#messages.get(id);
    if (held === undefined || held.owner !== owner) return;
    this.#messages.set(id, {
      ...held,
      attempts: outcome.attempts,
      nextAttemptAt: outcome.at,
      lastError: outcome.error,
      deadAt: outcome.dead ? outcome.at : null,
      owner: null,
      leaseUntil: 0,
    });
  }

  async listDead(filter: {
    readonly clientId?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<OutboxDelivery[]> {
    return [...this.#messages.values()]
      .filter(
        (m) =>
          m.deadAt !== null &&
          (filter.clientId === undefined || m.clientId === filter.clientId) &&
          (filter.after === undefined || m.id > filter.after),
      )
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, Math.max(0, Math.min(1000, filter.limit)))
      .map(plain);
  }

  async resend(id: string, now: number): Promise<boolean> {
    const held = this.#messages.get(id);
    if (held === undefined || held.deadAt === null) return false;
    this.#messages.set(id, { ...held, attempts: 0, nextAttemptAt: now, deadAt: null, owner: null, leaseUntil: 0 });
    return true;
  }

  async discard(webhookId: string): Promise<number> {
    let count = 0;
    for (const [id, message] of this.#messages) {
      if (message.webhookId !== webhookId) continue;
      this.#messages.delete(id);
      count += 1;
    }
    return count;
  }

  async counts(): Promise<OutboxCounts> {
    let dead = 0;
    for (const message of this.#messages.values()) if (message.deadAt !== null) dead += 1;
    return { pending: this.#messages.size - dead, dead };
  }

  clear(): void {
    this.#messages.clear();
  }
}

function plain(held: Held): OutboxDelivery {
  const { owner: _owner, leaseUntil: _leaseUntil, ...delivery } = held;
  return delivery;
}

export class MemoryWebhookStore implements WebhookStore {
  readonly #webhooks = new Map<string, StoredWebhook>();

  async list(clientId: string): Promise<StoredWebhook[]> {
    return [...this.#webhooks.values()]
      .filter((w) => w.clientId === clientId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((w) => structuredClone(w));
  }

  async create(webhook: StoredWebhook): Promise<void> {
    this.#webhooks.set(webhook.id, structuredClone(webhook));
  }

  async update(clientId: string, id: string, changes: WebhookChanges): Promise<boolean> {
    const webhook = this.#webhooks.get(id);
    if (webhook?.clientId !== clientId) return false;
    this.#webhooks.set(id, structuredClone({ ...webhook, url: changes.url, events: changes.events }));
    return true;
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    if (this.#webhooks.get(id)?.clientId !== clientId) return false;
    return this.#webhooks.delete(id);
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const ids = [...this.#webhooks.values()].filter((w) => w.clientId === clientId).map((w) => w.id);
    for (const id of ids) this.#webhooks.delete(id);
    return ids.length;
  }

  async listAll(): Promise<StoredWebhook[]> {
    return [...this.#webhooks.values()].map((w) => structuredClone(w));
  }

  async replaceSecret(clientId: string, id: string, from: string, to: string): Promise<boolean> {
    const webhook = this.#webhooks.get(id);
    if (webhook?.clientId !== clientId || webhook.secret !== from) return false;
    this.#webhooks.set(id, { ...webhook, secret: to });
    return true;
  }

  clear(): void {
    this.#webhooks.clear();
  }
}
