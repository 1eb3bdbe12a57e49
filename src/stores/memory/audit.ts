// The audit log in process memory: a bounded list, oldest dropped first. For a single instance and tests;
// it does not survive a restart (docs/operations.md says so, and what a database table needs).
import type { AuditEvent } from '../../schemas/admin.js';
import type { AuditQuery, AuditStore } from '../types.js';

export class MemoryAuditStore implements AuditStore {
  readonly #events: AuditEvent[] = [];
  readonly #max: number;

  constructor(options: { readonly maxEvents?: number } = {}) {
    this.#max = options.maxEvents ?? 100_000;
  }

  get size(): number {
    return this.#events.length;
  }

  async append(event: AuditEvent): Promise<void> {
    this.#events.push(structuredClone(event));
    // Drop in batches so that trimming stays O(1) amortised.
    if (this.#events.length > this.#max)
      this.#events.splice(0, Math.max(1, this.#events.length - this.#max, Math.floor(this.#max / 10)));
  }

  async query(query: AuditQuery): Promise<AuditEvent[]> {
    const out: AuditEvent[] = [];
    for (const event of this.#events) {
      if (out.length >= query.limit) break;
      if (matchesQuery(event, query)) out.push(structuredClone(event));
    }
    return out;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Whether an event passes a query's filters (not its paging). */
export function matchesQuery(
  event: AuditEvent,
  query: {
    since?: number;
    until?: number;
    clientId?: string;
    action?: string;
    actor?: string;
    result?: AuditEvent['result'];
    after?: string;
  },
): boolean {
  const at = Date.parse(event.time);
  if (query.since !== undefined && at < query.since) return false;
  if (query.until !== undefined && at >= query.until) return false;
  if (query.clientId !== undefined && event.clientId !== query.clientId) return false;
  if (
    query.action !== undefined &&
    !(query.action.endsWith('.') ? event.action.startsWith(query.action) : event.action === query.action)
  )
    return false;
  if (query.actor !== undefined && event.actor !== query.actor) return false;
  if (query.result !== undefined && event.result !== query.result) return false;
  if (query.after !== undefined && !(event.id > query.after)) return false;
  return true;
}
