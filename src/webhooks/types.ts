// The webhook outbox and the webhooks the admin API adds (docs/admin.md "Webhooks"), which every store backend
// keeps (stores/types.ts re-exports them with the other store interfaces). An event is written
// into the outbox in the same transaction as the change it reports (CredentialStore's `events` arguments),
// then delivered by the dispatcher (src/webhooks/dispatcher.ts) off the request path: leased by one
// instance at a time, retried with backoff, and after the last attempt kept as a dead letter.

/** One message to one webhook: what a delivery POSTs, byte for byte, with its Standard Webhooks id. */
export interface OutboxMessage {
  /** The `webhook-id` header (`msg_…`), the same on every attempt. */
  readonly id: string;
  readonly clientId: string;
  /** The webhook it goes to (`WebhookEndpoint.id`). */
  readonly webhookId: string;
  /** The event type (`credential.created` …). */
  readonly type: string;
  /** The exact JSON body: `{"type","timestamp","data"}`. */
  readonly body: string;
  /** Epoch ms: when the change was made; the `webhook-timestamp` of every attempt is the attempt's time. */
  readonly createdAt: number;
}

/** A message as the outbox holds it. */
export interface OutboxDelivery extends OutboxMessage {
  /** Attempts made so far. */
  readonly attempts: number;
  /** Epoch ms of the next attempt (pending), or of the last one (dead). */
  readonly nextAttemptAt: number;
  readonly lastError: string | null;
  /** Epoch ms when it became a dead letter; null while pending. */
  readonly deadAt: number | null;
}

export interface WebhookOutbox {
  /** Writes messages on their own (a failure that changed nothing stored, e.g. a refused sign-in). */
  enqueue(messages: readonly OutboxMessage[]): Promise<void>;
  /**
   * Takes up to `limit` pending messages due at `now` that no other instance holds, and holds them for
   * `leaseMs` under `owner` (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one IMMEDIATE transaction).
   */
  lease(owner: string, now: number, leaseMs: number, limit: number): Promise<OutboxDelivery[]>;
  /** Delivered: removed (only if `owner` still holds it). */
  delivered(id: string, owner: string): Promise<void>;
  /** Failed: `nextAttemptAt` set (retry), or dead with `deadAt` when `dead`; the lease is released. */
  failed(
    id: string,
    owner: string,
    outcome: { readonly attempts: number; readonly at: number; readonly error: string; readonly dead: boolean },
  ): Promise<void>;
  /** Dead letters, oldest first, the first `limit` after id `after`. */
  listDead(filter: {
    readonly clientId?: string;
    readonly limit: number;
    readonly after?: string;
  }): Promise<OutboxDelivery[]>;
  /** Puts a dead letter back as pending, due at `now`, with its attempts reset; false if there is none. */
  resend(id: string, now: number): Promise<boolean>;
  /** Removes every message of a webhook (it was deleted); resolves to how many. */
  discard(webhookId: string): Promise<number>;
  /** How many messages wait for delivery (pending, leased or not) and how many are dead letters (/metrics). */
  counts(): Promise<OutboxCounts>;
}

export interface OutboxCounts {
  readonly pending: number;
  readonly dead: number;
}

/** A webhook the admin API added (the config file's are in `applications[].webhooks`). */
export interface StoredWebhook {
  /** `wh_…`. */
  readonly id: string;
  readonly clientId: string;
  readonly url: string;
  /**
   * The signing secret as stored: `whenc:v1:…`, sealed (secret-box.ts); `whsec_<base64>` in rows from before
   * sealing, until the next start seals them. Its clear value is shown once, when created.
   */
  readonly secret: string;
  /** Event types; null: all. */
  readonly events: readonly string[] | null;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** What an update of a stored webhook sets: its URL and event types (null: all). */
export interface WebhookChanges {
  readonly url: string;
  readonly events: readonly string[] | null;
}

export interface WebhookStore {
  /** Oldest first. */
  list(clientId: string): Promise<StoredWebhook[]>;
  create(webhook: StoredWebhook): Promise<void>;
  /** Changes a webhook's URL and event types (its id, secret and creation time stay); false if there is none. */
  update(clientId: string, id: string, changes: WebhookChanges): Promise<boolean>;
  delete(clientId: string, id: string): Promise<boolean>;
  /** Every webhook of an application removed (application deletion). */
  deleteByApplication(clientId: string): Promise<number>;
  /** Every stored webhook, of every application (sealing their secrets at start). */
  listAll(): Promise<StoredWebhook[]>;
  /** Sets a webhook's stored secret to `to` if it still is `from`; false otherwise (changed meanwhile, or gone). */
  replaceSecret(clientId: string, id: string, from: string, to: string): Promise<boolean>;
}

/** What a marking does: the credentials marked now (not those already carrying this status). */
export interface MarkRequest {
  readonly clientId: string;
  readonly aaguid: string;
  readonly status: string;
  /** Epoch ms. */
  readonly at: number;
}

/** A webhook as the directory gives it to the ceremonies and the dispatcher: the config file's or a stored one. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly clientId: string;
  readonly url: string;
  /** `whsec_…`, or `env:<NAME>` (resolved by the dispatcher from what config/ read at start). */
  readonly secret: string;
  /** Event types; null: all. */
  readonly events: readonly string[] | null;
  readonly source: 'config' | 'admin';
  /** Epoch ms (stored ones); null for the config file's. */
  readonly createdAt: number | null;
}
