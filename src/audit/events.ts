// Building audit events: ids that sort by time, and one place that fills the optional fields.
import type { Runtime } from '../util/runtime.js';
import type { AuditDetails, AuditEvent, AuditResult } from './types.js';

export interface AuditFacts {
  readonly actor: string;
  readonly action: string;
  readonly result: AuditResult;
  readonly clientId?: string | null;
  readonly subject?: string | null;
  readonly target?: string | null;
  readonly errorName?: string | null;
  readonly requestId?: string | null;
  readonly remoteAddress?: string | null;
  readonly details?: AuditDetails;
}

/**
 * Event ids that compare (as strings) in the order events were made by this process: 11 base-36 digits
 * of epoch ms, a per-millisecond sequence, and a random part that keeps instances apart.
 */
export function createAuditIdSource(runtime: Runtime): () => string {
  let lastMs = -1;
  let sequence = 0;
  return () => {
    const now = Math.max(runtime.now(), lastMs);
    sequence = now === lastMs ? sequence + 1 : 0;
    lastMs = now;
    return `${now.toString(36).padStart(11, '0')}-${sequence.toString(36).padStart(4, '0')}-${runtime.randomBytes(4).toString('hex')}`;
  };
}

export function auditEvent(id: string, at: number, facts: AuditFacts): AuditEvent {
  const event: AuditEvent = {
    id,
    time: new Date(at).toISOString(),
    actor: facts.actor,
    action: facts.action,
    clientId: facts.clientId ?? null,
    subject: facts.subject ?? null,
    target: facts.target ?? null,
    result: facts.result,
    errorName: facts.errorName ?? null,
    requestId: facts.requestId ?? null,
    remoteAddress: facts.remoteAddress ?? null,
  };
  return facts.details === undefined ? event : { ...event, details: facts.details };
}

/** Whether an event passes a query's filters (not its paging). */
export function matchesQuery(event: AuditEvent, query: { since?: number; until?: number; clientId?: string; action?: string; actor?: string; result?: AuditResult; after?: string }): boolean {
  const at = Date.parse(event.time);
  if (query.since !== undefined && at < query.since) return false;
  if (query.until !== undefined && at >= query.until) return false;
  if (query.clientId !== undefined && event.clientId !== query.clientId) return false;
  if (query.action !== undefined && !(query.action.endsWith('.') ? event.action.startsWith(query.action) : event.action === query.action)) return false;
  if (query.actor !== undefined && event.actor !== query.actor) return false;
  if (query.result !== undefined && event.result !== query.result) return false;
  if (query.after !== undefined && !(event.id > query.after)) return false;
  return true;
}

/** JSON lines: one event per line, each line a complete JSON object (for SIEM import). */
export function toJsonLines(events: readonly AuditEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
