// The webhook outbox's row, as SQLite and PostgreSQL both read it (the same table, migration 6 / 8): one
// mapping to the record. PostgreSQL answers BIGINT columns as strings, SQLite as numbers; Number() takes both.
import type { OutboxDelivery } from './types.js';

export interface OutboxRow {
  id: string;
  client_id: string;
  webhook_id: string;
  type: string;
  body: string;
  created_at: number | string;
  attempts: number;
  next_attempt_at: number | string;
  last_error: string | null;
  dead_at: number | string | null;
}

export const OUTBOX_COLUMNS =
  'id, client_id, webhook_id, type, body, created_at, attempts, next_attempt_at, last_error, dead_at';

export function outboxDelivery(row: OutboxRow): OutboxDelivery {
  return {
    id: row.id,
    clientId: row.client_id,
    webhookId: row.webhook_id,
    type: row.type,
    body: row.body,
    createdAt: Number(row.created_at),
    attempts: row.attempts,
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    deadAt: row.dead_at === null ? null : Number(row.dead_at),
  };
}
