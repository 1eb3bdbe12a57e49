// The webhook outbox and the admin API's webhooks on PostgreSQL, in the credential store's schema and pool
// (migration 7). A lease takes due messages with FOR UPDATE SKIP LOCKED, so two instances polling at once
// take different messages and each message is delivered by one instance while its lease runs.
import type pg from 'pg';
import { guarded, toNumber } from './connection.js';
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

/** Something that runs a statement: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Runs `work` in one transaction on a client of the pool (BEGIN … COMMIT, ROLLBACK on failure). */
export async function inTransaction<T>(pool: pg.Pool, what: string, work: (client: Queryable) => Promise<T>) {
  return guarded(what, async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });
}

export class PostgresOutbox implements WebhookOutbox {
  readonly #pool: pg.Pool;
  readonly #table: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    this.#table = `${schema}.webhook_outbox`;
  }

  /** Inserts on `client` (the caller's transaction). */
  async insertWith(client: Queryable, messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await client.query(
      `INSERT INTO ${this.#table} (id, client_id, webhook_id, type, body, created_at, next_attempt_at)
       SELECT * , created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
         AS m(id, client_id, webhook_id, type, body, created_at)
       ON CONFLICT (id) DO NOTHING`,
      [
        messages.map((m) => m.id),
        messages.map((m) => m.clientId),
        messages.map((m) => m.webhookId),
        messages.map((m) => m.type),
        messages.map((m) => m.body),
        messages.map((m) => m.createdAt),
      ],
    );
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await guarded('webhook enqueue', () => this.insertWith(this.#pool, messages));
  }

  async lease(owner: string, now: number, leaseMs: number, limit: number): Promise<OutboxDelivery[]> {
    const result = await guarded('webhook lease', () =>
      this.#pool.query<OutboxRow>(
        `UPDATE ${this.#table} SET lease_owner = $1, lease_until = $2
         WHERE id IN (SELECT id FROM ${this.#table}
                      WHERE dead_at IS NULL AND next_attempt_at <= $3 AND lease_until <= $3
                      ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${OUTBOX_COLUMNS}`,
        [owner, now + leaseMs, now, Math.max(0, limit)],
      ),
    );
    return result.rows.map(outboxDelivery).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : 1));
  }

  async delivered(id: string, owner: string): Promise<void> {
    await guarded('webhook delivered', () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE id = $1 AND lease_owner = $2`, [id, owner]),
    );
  }

  async failed(
    id: string,
    owner: string,
    outcome: { readonly attempts: number; readonly at: number; readonly error: string; readonly dead: boolean },
  ): Promise<void> {
    await guarded('webhook failed', () =>
      this.#pool.query(
        `UPDATE ${this.#table} SET attempts = $3, next_attempt_at = $4, last_error = $5, dead_at = $6,
           lease_owner = NULL, lease_until = 0
         WHERE id = $1 AND lease_owner = $2`,
        [id, owner, outcome.attempts, outcome.at, outcome.error, outcome.dead ? outcome.at : null],
      ),
    );
  }

  async listDead(filter: {
    readonly clientId?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<OutboxDelivery[]> {
    const result = await guarded('webhook dead letters', () =>
      this.#pool.query<OutboxRow>(
        `SELECT ${OUTBOX_COLUMNS} FROM ${this.#table}
         WHERE dead_at IS NOT NULL AND ($1::text IS NULL OR client_id = $1) AND ($2::text IS NULL OR id > $2)
         ORDER BY id LIMIT $3`,
        [filter.clientId ?? null, filter.after ?? null, Math.max(0, Math.min(1000, filter.limit))],
      ),
    );
    return result.rows.map(outboxDelivery);
  }

  async resend(id: string, now: number): Promise<boolean> {
    const result = await guarded('webhook resend', () =>
      this.#pool.query(
        `UPDATE ${this.#table} SET attempts = 0, next_attempt_at = $2, dead_at = NULL, last_error = NULL,
           lease_owner = NULL, lease_until = 0
         WHERE id = $1 AND dead_at IS NOT NULL`,
        [id, now],
      ),
    );
    return result.rowCount === 1;
  }

  async discard(webhookId: string): Promise<number> {
    const result = await guarded('webhook discard', () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE webhook_id = $1`, [webhookId]),
    );
    return result.rowCount ?? 0;
  }

  async counts(): Promise<OutboxCounts> {
    const result = await guarded('webhook counts', () =>
      this.#pool.query<{ pending: string; dead: string }>(
        `SELECT count(*) FILTER (WHERE dead_at IS NULL) AS pending, count(*) FILTER (WHERE dead_at IS NOT NULL) AS dead
         FROM ${this.#table}`,
      ),
    );
    const row = result.rows[0];
    return { pending: Number(row?.pending ?? 0), dead: Number(row?.dead ?? 0) };
  }
}

interface WebhookRow {
  id: string;
  client_id: string;
  url: string;
  secret: string;
  events: string[] | null;
  created_at: string | number;
}

function storedWebhook(row: WebhookRow): StoredWebhook {
  return {
    id: row.id,
    clientId: row.client_id,
    url: row.url,
    secret: row.secret,
    events: row.events === null ? null : [...row.events],
    createdAt: toNumber(row.created_at),
  };
}

export class PostgresWebhookStore implements WebhookStore {
  readonly #pool: pg.Pool;
  readonly #table: string;

  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    this.#table = `${schema}.webhooks`;
  }

  async list(clientId: string): Promise<StoredWebhook[]> {
    const result = await guarded('webhook list', () =>
      this.#pool.query<WebhookRow>(`SELECT * FROM ${this.#table} WHERE client_id = $1 ORDER BY created_at, id`, [
        clientId,
      ]),
    );
    return result.rows.map(storedWebhook);
  }

  async listAll(): Promise<StoredWebhook[]> {
    const result = await guarded('webhook list all', () =>
      this.#pool.query<WebhookRow>(`SELECT * FROM ${this.#table} ORDER BY client_id, created_at, id`),
    );
    return result.rows.map(storedWebhook);
  }

  async replaceSecret(clientId: string, id: string, from: string, to: string): Promise<boolean> {
    const result = await guarded('webhook secret', () =>
      this.#pool.query(`UPDATE ${this.#table} SET secret = $4 WHERE client_id = $1 AND id = $2 AND secret = $3`, [
        clientId,
        id,
        from,
        to,
      ]),
    );
    return result.rowCount === 1;
  }

  async create(webhook: StoredWebhook): Promise<void> {
    await guarded('webhook create', () =>
      this.#pool.query(
        `INSERT INTO ${this.#table} (id, client_id, url, secret, events, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          webhook.id,
          webhook.clientId,
          webhook.url,
          webhook.secret,
          webhook.events === null ? null : [...webhook.events],
          webhook.createdAt,
        ],
      ),
    );
  }

  async update(clientId: string, id: string, changes: WebhookChanges): Promise<boolean> {
    const result = await guarded('webhook update', () =>
      this.#pool.query(`UPDATE ${this.#table} SET url = $3, events = $4 WHERE client_id = $1 AND id = $2`, [
        clientId,
        id,
        changes.url,
        changes.events === null ? null : [...changes.events],
      ]),
    );
    return result.rowCount === 1;
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    const result = await guarded('webhook delete', () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE client_id = $1 AND id = $2`, [clientId, id]),
    );
    return result.rowCount === 1;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const result = await guarded('webhook delete by application', () =>
      this.#pool.query(`DELETE FROM ${this.#table} WHERE client_id = $1`, [clientId]),
    );
    return result.rowCount ?? 0;
  }
}
