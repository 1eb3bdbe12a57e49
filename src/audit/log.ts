// The audit log as the rest of the service uses it: record facts (id and time filled in here), read them
// back. Recording never throws into the caller: an unreachable audit store is logged, not fatal, because
// an audit outage must not turn every login into an error.
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import { auditEvent, createAuditIdSource, type AuditFacts } from './events.js';
import type { AuditEvent, AuditQuery, AuditStore } from './types.js';

export class AuditLog {
  readonly #store: AuditStore;
  readonly #runtime: Runtime;
  readonly #log: Logger | undefined;
  readonly #nextId: () => string;

  constructor(store: AuditStore, runtime: Runtime, log?: Logger) {
    this.#store = store;
    this.#runtime = runtime;
    this.#log = log;
    this.#nextId = createAuditIdSource(runtime);
  }

  get store(): AuditStore {
    return this.#store;
  }

  /** Appends one event; resolves to it, or to undefined if the store failed (logged). */
  async record(facts: AuditFacts): Promise<AuditEvent | undefined> {
    const event = auditEvent(this.#nextId(), this.#runtime.now(), facts);
    try {
      await this.#store.append(event);
      return event;
    } catch (error) {
      this.#log?.error(
        {
          event: 'audit_append_failed',
          action: event.action,
          auditId: event.id,
          error: error instanceof Error ? error.message : String(error),
        },
        'audit event could not be stored',
      );
      return undefined;
    }
  }

  query(query: AuditQuery): Promise<AuditEvent[]> {
    return this.#store.query(query);
  }
}
