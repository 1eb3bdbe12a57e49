// The operator features' stores: applications (admin API), audit log, rate-limit buckets. Re-exported by
// types.ts, where the rest of the code finds every store interface.

import type { ApplicationConfig, RateLimitRule } from '../config.js';
import type { AuditEvent } from '../schemas/admin.js';

/** A stored application. Applications kept in a store rather than only in the config file, so that the admin API
 * and the CLI can create, approve, disable and delete them while the service runs. */
export interface ApplicationRecord {
  /** The application as configured; `variants` is what it asks for (standard counts only once approved). */
  readonly config: ApplicationConfig;
  /** Whether the standard variant is approved for `config.domain` (the provider's domain approval). */
  readonly approved: boolean;
  /** A disabled application is unknown to the four operations (CLIENT_ID_UNKNOWN) but keeps its credentials. */
  readonly disabled: boolean;
  /** `config`: written from the config file at start (and refreshed from it); `admin`: changed by the admin API or CLI since. */
  readonly source: 'config' | 'admin';
  /** Epoch ms. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface ApplicationStore {
  get(clientId: string): Promise<ApplicationRecord | undefined>;
  /** Every application, ordered by Client ID. */
  list(): Promise<ApplicationRecord[]>;
  create(record: ApplicationRecord): Promise<'created' | 'duplicate'>;
  /** Replaces an existing record; false if there is none. */
  update(record: ApplicationRecord): Promise<boolean>;
  delete(clientId: string): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
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

// Rate limits are token buckets: each holds up to `burst` tokens, refills at `perSecond` tokens a second, and
// every admitted request takes one token from each bucket it falls under (its application, its address).

export interface BucketRequest {
  readonly key: string;
  readonly rule: RateLimitRule;
}

export interface BucketDecision {
  readonly allowed: boolean;
  /** 0 when allowed; otherwise whole seconds until every bucket has a token again (at least 1). */
  readonly retryAfterSeconds: number;
}

/**
 * Where the buckets live: in process (one instance) or shared (Redis, several instances). `consume` is
 * all-or-nothing and atomic: a token is taken from every bucket or from none.
 */
export interface BucketStore {
  consume(buckets: readonly BucketRequest[], now: number): Promise<BucketDecision>;
  /** Resolves when the backend answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
