// The operator features' stores: applications (admin API), audit log (its interface is audit/types.ts'),
// rate-limit buckets (ratelimit/types.ts'). Re-exported by types.ts, where the backends find every store
// interface.

import type { ApplicationConfig } from '../service-config.js';

export type { AuditQuery, AuditStore } from '../audit/types.js';
export type { BucketDecision, BucketRequest, BucketStore } from '../ratelimit/types.js';

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
