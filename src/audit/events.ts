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

/** Bytes of randomness in an id: enough to keep the ids of instances writing in the same millisecond apart. */
const ID_RANDOM_BYTES = 4;

/**
 * Event ids that compare (as strings) in the order events were made by this process: 11 base-36 digits
 * of epoch ms, a per-millisecond sequence, and a random part that keeps instances apart. The millisecond
 * part is formatted once per millisecond (events come many to a millisecond under load); the random part
 * comes from the runtime, whose system form draws it from the service's one pool (util/runtime.ts).
 */
export function createAuditIdSource(runtime: Pick<Runtime, 'now' | 'randomBytes'>): () => string {
  let lastMs = -1;
  let msText = '';
  let sequence = 0;
  return () => {
    const now = Math.max(runtime.now(), lastMs);
    if (now === lastMs) {
      sequence += 1;
    } else {
      sequence = 0;
      lastMs = now;
      msText = now.toString(36).padStart(11, '0');
    }
    const randomText = runtime.randomBytes(ID_RANDOM_BYTES).toString('hex');
    return `${msText}-${sequence.toString(36).padStart(4, '0')}-${randomText}`;
  };
}

/** The largest time value a Date holds (ECMAScript: ±100,000,000 days around 1970). */
const MAX_TIME_MS = 8.64e15;

/**
 * `new Date(ms).toISOString()`, keeping the text of the last second formatted: events come many to a
 * second, and only the milliseconds then change.
 */
export function createIsoTime(): (ms: number) => string {
  // Outside whole milliseconds within ECMAScript's time range, Date itself decides (it throws past the range).
  const plain = (ms: number) => !Number.isInteger(ms) || Math.abs(ms) > MAX_TIME_MS;
  let second = Number.NaN;
  let prefix = '';
  return (ms) => {
    if (plain(ms)) return new Date(ms).toISOString();
    const thisSecond = Math.floor(ms / 1000);
    if (thisSecond !== second) {
      const text = new Date(thisSecond * 1000).toISOString();
      // `…T12:34:56.000Z`: the prefix ends at the decimal point, and the year may be wider than four digits.
      prefix = text.slice(0, text.length - 4);
      second = thisSecond;
    }
    const milliseconds = ms - thisSecond * 1000;
    return `${prefix}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
  };
}

const isoTime = createIsoTime();

export function auditEvent(id: string, at: number, facts: AuditFacts): AuditEvent {
  const event: { -readonly [K in keyof AuditEvent]: AuditEvent[K] } = {
    id,
    time: isoTime(at),
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
  if (facts.details !== undefined) event.details = facts.details;
  return event;
}

/** JSON lines: one event per line, each line a complete JSON object (for SIEM import). */
export function toJsonLines(events: readonly AuditEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
