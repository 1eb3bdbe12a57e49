// The audit log: who did what, when, with what result. Administrative changes (admin API and CLI) and
// ceremony outcomes are recorded. An event never holds a key, a challenge, a token or a request body:
// only names, identifiers and outcomes.

import type { AuditDetailsSchema, AuditEvent, AuditResultSchema } from '../schemas/admin.js';
import type { Shape, Static } from '../schemas/typebox.js';

export type AuditResult = Static<typeof AuditResultSchema>;

/** Identifiers and small facts; nothing secret. */
export type AuditDetails = Shape<typeof AuditDetailsSchema>;

/** One event (schemas/admin.ts `AuditEventSchema`, which the admin API's answers are checked against). */
export type { AuditEvent };

/** Where the audit log keeps its events: a store of each backend (stores/<backend>/audit.ts). */
export interface AuditQuery {
  /** Inclusive lower bound, epoch ms. */
  readonly since?: number;
  /** Exclusive upper bound, epoch ms. */
  readonly until?: number;
  readonly clientId?: string;
  /** Exact action, or a prefix ending in `.` (`credential.`). */
  readonly action?: string;
  readonly actor?: string;
  readonly result?: AuditEvent['result'];
  /** Events with an id greater than this (paging forward). */
  readonly after?: string;
  /** At most this many, oldest first. */
  readonly limit: number;
}

export interface AuditStore {
  append(event: AuditEvent): Promise<void>;
  /** Oldest first. */
  query(query: AuditQuery): Promise<AuditEvent[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
