// The audit log: who did what, when, with what result. Administrative changes (admin API and CLI) and
// ceremony outcomes are recorded. An event never holds a key, a challenge, a token or a request body:
// only names, identifiers and outcomes.

export type AuditResult = 'ok' | 'failed';

/** Identifiers and small facts; nothing secret. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

export interface AuditEvent {
  /** Unique and increasing in time within one process: `<ms, base36, zero-padded>-<random>`. */
  readonly id: string;
  /** ISO 8601 UTC. */
  readonly time: string;
  /** Who: `admin:<token name>`, `cli:<os user>`, `client:<Client ID>` (a ceremony), `system`. */
  readonly actor: string;
  /** What, e.g. `application.create`, `credential.delete`, `ceremony.registration`, `ceremony.authentication.options`. */
  readonly action: string;
  /** The application concerned, if any. */
  readonly clientId: string | null;
  /** The user concerned (`username`), if known. */
  readonly subject: string | null;
  /** The object concerned (credential id, admin token id), if any. */
  readonly target: string | null;
  readonly result: AuditResult;
  /** The error name of a failure (catalogue or admin error name); null on success. */
  readonly errorName: string | null;
  readonly requestId: string | null;
  readonly remoteAddress: string | null;
  readonly details?: AuditDetails;
}

export interface AuditQuery {
  /** Inclusive lower bound, epoch ms. */
  readonly since?: number;
  /** Exclusive upper bound, epoch ms. */
  readonly until?: number;
  readonly clientId?: string;
  /** Exact action, or a prefix ending in `.` (`credential.`). */
  readonly action?: string;
  readonly actor?: string;
  readonly result?: AuditResult;
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
