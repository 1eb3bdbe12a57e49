// The webhook outbox and the admin API's webhooks on SQLite, on the credential store's connection and file
// (migration 5). Several processes may share the file: a lease is one IMMEDIATE transaction, so two
// processes never take the same message while its lease runs.
import type Database from 'better-sqlite3';
import { guarded } from './open.js';
import type { SqliteFollowUps } from './writes.js';
import { SQLITE_WRITES } from './writes.js';
import type {
  OutboxCounts,
  OutboxDelivery,
  OutboxMessage,
  StoredWebhook,
  WebhookChanges,
  WebhookOutbox,
  WebhookStore,
} from '../types.js';
import { OUTBOX_COLUMNS, outboxDelivery, type OutboxRow } from '../outbox-rows.js';

type Db = Database.Database;

/** The parameters of SQLITE_WRITES['webhook.enqueue'] for one message. */
export function enqueueParams(message: OutboxMessage): SqliteFollowUps[number]['params'] {
  return {
    id: message.id,
    clientId: message.clientId,
    webhookId: message.webhookId,
    type: message.type,
    body: message.body,
    createdAt: message.createdAt,
  };
}

/** The messages as follow-ups of a writer write (they commit with it). */
export function enqueueFollowUps(messages: readonly OutboxMessage[]): SqliteFollowUps {
  return messages.map((message) => ({ name: 'webhook.enqueue', params: enqueueParams(message) }));
}

export class SqliteOutbox implements WebhookOutbox {
  readonly #db: Db;
  readonly #insert: Database.Statement;
  readonly #lease: Database.Statement;
  readonly #delivered: Database.Statement;
  readonly #failed: Database.Statement;
  readonly #listDead: Database.Statement;
  readonly #resend: Database.Statement;
  readonly #discard: Database.Statement;
  readonly #counts: Database.Statement;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(SQLITE_WRITES['webhook.enqueue']);
    this.#lease = db.prepare(`UPDATE webhook_outbox SET lease_owner = @owner, lease_until = @until
      WHERE id IN (SELECT id FROM webhook_outbox WHERE dead_at IS NULL AND next_attempt_at <= @now AND lease_until <= @now
                   ORDER BY next_attempt_at, id LIMIT @limit)
      RETURNING ${OUTBOX_COLUMNS}`);
    this.#delivered = db.prepare('DELETE FROM webhook_outbox WHERE id = ? AND lease_owner = ?');
    this.#failed = db.prepare(`UPDATE webhook_outbox
      SET attempts = @attempts, next_attempt_at = @at, last_error = @error, dead_at = @deadAt, lease_owner = NULL, lease_until = 0
      WHERE id = @id AND lease_owner = @owner`);
    this.#listDead = db.prepare(`SELECT ${OUTBOX_COLUMNS} FROM webhook_outbox
      WHERE dead_at IS NOT NULL AND (@clientId IS NULL OR client_id = @clientId) AND (@after IS NULL OR id > @after)
      ORDER BY id LIMIT @limit`);
    this.#resend = db.prepare(`UPDATE webhook_outbox
      SET attempts = 0, next_attempt_at = ?, dead_at = NULL, last_error = NULL, lease_owner = NULL, lease_until = 0
      WHERE id = ? AND dead_at IS NOT NULL`);
    this.#discard = db.prepare('DELETE FROM webhook_outbox WHERE webhook_id = ?');
    this.#counts = db.prepare(
      'SELECT sum(dead_at IS NULL) AS pending, sum(dead_at IS NOT NULL) AS dead FROM webhook_outbox',
    );
  }

  /** In the caller's transaction (the credential store's changes made on this connection). */
  insertNow(messages: readonly OutboxMessage[]): void {
    for (const message of messages) this.#insert.run(enqueueParams(message));
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    guarded('webhook enqueue', () => this.#db.transaction(() => this.insertNow(messages)).immediate());
  }

  async lease(owner: string, now: number, leaseMs: number, limit: number): Promise<OutboxDelivery[]> {
    const rows = guarded('webhook lease', () =>
      this.#db
        .transaction(() => this.#lease.all({ owner, until: now + leaseMs, now, limit: Math.max(0, limit) }))
        .immediate(),
    ) as OutboxRow[];
    return rows.map(outboxDelivery).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1));
  }

  async delivered(id: string, owner: string): Promise<void> {
    guarded('webhook delivered', () => this.#delivered.run(id, owner));
  }

  async failed(
    id: string,
    owner: string,
    outcome: { readonly attempts: number; readonly at: number; readonly error: string; readonly dead: boolean },
  ): Promise<void> {
    guarded('webhook failed', () =>
      this.#failed.run({
        id,
        owner,
        attempts: outcome.attempts,
        at: outcome.at,
        error: outcome.error,
        deadAt: outcome.dead ? outcome.at : null,
      }),
    );
  }

  async listDead(filter: {
    readonly clientId?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<OutboxDelivery[]> {
    const rows = guarded('webhook dead letters', () =>
      this.#listDead.all({
        clientId: filter.clientId ?? null,
        after: filter.after ?? null,
        limit: Math.max(0, Math.min(1000, filter.limit)),
      }),
    ) as OutboxRow[];
    return rows.map(outboxDelivery);
  }

  async resend(id: string, now: number): Promise<boolean> {
    return guarded('webhook resend', () => this.#resend.run(now, id)).changes === 1;
  }

  async discard(webhookId: string): Promise<number> {
    return guarded('webhook discard', () => this.#discard.run(webhookId)).changes;
  }

  async counts(): Promise<OutboxCounts> {
    const row = guarded('webhook counts', () => this.#counts.get()) as { pending: number | null; dead: number | null };
    return { pending: row.pending ?? 0, dead: row.dead ?? 0 };
  }
}

interface WebhookRow {
  id: string;
  client_id: string;
  url: string;
  secret: string;
  events: string | null;
  created_at: number;
}

function storedWebhook(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    clientId: row.client_id,
    url: row.url,
    secret: row.secret,
    events: row.events === null ? null : (JSON.parse(row.events) as string[]),
    createdAt: row.created_at,
  };
}

export class SqliteWebhookStore implements WebhookStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async list(clientId: string): Promise<StoredWebhook[]> {
    const rows = guarded('webhook list', () =>
      this.#db.prepare('SELECT * FROM webhooks WHERE client_id = ? ORDER BY created_at, id').all(clientId),
    ) as WebhookRow[];
    return rows.map(storedWebhook);
  }

  async listAll(): Promise<StoredWebhook[]> {
    const rows = guarded('webhook list all', () =>
      this.#db.prepare('SELECT * FROM webhooks ORDER BY client_id, created_at, id').all(),
    ) as WebhookRow[];
    return rows.map(storedWebhook);
  }

  async replaceSecret(clientId: string, id: string, from: string, to: string): Promise<boolean> {
    return (
      guarded('webhook secret', () =>
        this.#db
          .prepare('UPDATE webhooks SET secret = ? WHERE client_id = ? AND id = ? AND secret = ?')
          .run(to, clientId, id, from),
      ).changes === 1
    );
  }

  async create(webhook: StoredWebhook): Promise<void> {
    guarded('webhook create', () =>
      this.#db
        .prepare('INSERT INTO webhooks (id, client_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(
          webhook.id,
          webhook.clientId,
          webhook.url,
          webhook.secret,
          webhook.events === null ? null : JSON.stringify(webhook.events),
          webhook.createdAt,
        ),
    );
  }

  async update(clientId: string, id: string, changes: WebhookChanges): Promise<boolean> {
    return (
      guarded('webhook update', () =>
        this.#db
          .prepare('UPDATE webhooks SET url = ?, events = ? WHERE client_id = ? AND id = ?')
          .run(changes.url, changes.events === null ? null : JSON.stringify(changes.events), clientId, id),
      ).changes === 1
    );
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    return (
      guarded('webhook delete', () =>
        this.#db.prepare('DELETE FROM webhooks WHERE client_id = ? AND id = ?').run(clientId, id),
      ).changes === 1
    );
  }

  async deleteByApplication(clientId: string): Promise<number> {
    return guarded('webhook delete by application', () =>
      this.#db.prepare('DELETE FROM webhooks WHERE client_id = ?').run(clientId),
    ).changes;
  }
}
