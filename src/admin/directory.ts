// The ApplicationDirectory of the four operations, backed by an ApplicationStore. Lookups are cached for a
// few seconds (every instance sees an admin change within `cacheMs`; the instance that made it at once),
// unknown Client IDs included, so a flood of made-up ids costs one store read each per interval at most.
import type { ApplicationConfig } from '../config.js';
import type { Application, ApplicationDirectory } from '../service.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import { effectiveVariants, type ApplicationRecord, type ApplicationStore } from './application-store.js';

export interface StoredDirectoryOptions {
  readonly store: ApplicationStore;
  /** Builds the trust evaluator of a policy (main.ts passes loadTrustEvaluator). Built once per distinct policy. */
  readonly buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /** Epoch ms (runtime.now). */
  readonly now: () => number;
  /** How long a lookup is reused (default 5000 ms; 0 = always read the store). */
  readonly cacheMs?: number;
  /** Bound on cached lookups (default 10 000). */
  readonly maxCached?: number;
}

interface CacheEntry {
  readonly application: Application | undefined;
  readonly expiresAt: number;
}

export class StoredApplicationDirectory implements ApplicationDirectory {
  readonly #options: StoredDirectoryOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #pending = new Map<string, Promise<Application | undefined>>();
  readonly #trust = new Map<string, TrustEvaluator>();
  /** Client IDs last found active (kept even with cacheMs 0), for isKnown. Bounded like the cache. */
  readonly #known = new Set<string>();
  #generation = 0;

  constructor(options: StoredDirectoryOptions) {
    this.#options = options;
  }

  async find(clientId: string): Promise<Application | undefined> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.expiresAt > this.#options.now()) return cached.application;
    const pending = this.#pending.get(clientId);
    if (pending) return pending;
    const generation = this.#generation;
    const lookup = this.#load(clientId).then((application) => {
      // An invalidation while the read was in flight makes its result stale: do not cache it.
      if (generation === this.#generation) this.#remember(clientId, application);
      this.#noteKnown(clientId, application !== undefined);
      return application;
    }).finally(() => this.#pending.delete(clientId));
    this.#pending.set(clientId, lookup);
    return lookup;
  }

  /** Sync and cache-only: whether `clientId` was recently found as an active application (metrics labels). */
  isKnown(clientId: string): boolean {
    return this.#known.has(clientId);
  }

  /** Forgets cached lookups (after an admin change), one Client ID or all. */
  invalidate(clientId?: string): void {
    this.#generation += 1;
    if (clientId === undefined) this.#cache.clear();
    else this.#cache.delete(clientId);
  }

  list(): Promise<ApplicationRecord[]> {
    return this.#options.store.list();
  }

  async #load(clientId: string): Promise<Application | undefined> {
    const record = await this.#options.store.get(clientId);
    if (record === undefined || record.disabled) return undefined;
    return this.toApplication(record);
  }

  /** The Application the ceremonies see: the configuration with effective variants and its trust evaluator. */
  toApplication(record: ApplicationRecord): Application {
    const key = JSON.stringify(record.config.attestation);
    let trust = this.#trust.get(key);
    if (trust === undefined) {
      trust = this.#options.buildTrust(record.config.attestation);
      this.#trust.set(key, trust);
    }
    return Object.freeze({ ...record.config, variants: effectiveVariants(record), trust });
  }

  #noteKnown(clientId: string, active: boolean): void {
    if (!active) {
      this.#known.delete(clientId);
      return;
    }
    if (!this.#known.has(clientId) && this.#known.size >= (this.#options.maxCached ?? 10_000)) {
      const oldest = this.#known.values().next().value;
      if (oldest !== undefined) this.#known.delete(oldest);
    }
    this.#known.add(clientId);
  }

  #remember(clientId: string, application: Application | undefined): void {
    const ttl = this.#options.cacheMs ?? 5000;
    if (ttl <= 0) return;
    if (this.#cache.size >= (this.#options.maxCached ?? 10_000)) {
      // Drop the oldest entry (Map keeps insertion order).
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.delete(clientId);
    this.#cache.set(clientId, { application, expiresAt: this.#options.now() + ttl });
  }
}

/** JSON with object keys sorted, so that equal configurations compare equal whatever a store did to key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

export interface SeedReport {
  /** Written for the first time. */
  readonly created: string[];
  /** Config-sourced records refreshed from a changed config file. */
  readonly updated: string[];
  /** Listed in the config file but changed through the admin API or CLI since: the store's version is kept. */
  readonly kept: string[];
}

/**
 * Writes the config file's applications into the store at start. An application first comes from the file
 * (approved for the standard variant when the file lists it: the file is the operator's word); later starts
 * refresh it from the file, unless the admin API or CLI changed it since (then the store wins, and the
 * report says so, so main.ts can warn). Approval and disabling done through the admin API are kept.
 */
export async function seedApplications(store: ApplicationStore, configs: readonly ApplicationConfig[], now: number): Promise<SeedReport> {
  const report: SeedReport = { created: [], updated: [], kept: [] };
  for (const config of configs) {
    const existing = await store.get(config.clientId);
    if (existing === undefined) {
      const created = await store.create({
        config, approved: config.variants.includes('standard'), disabled: false, source: 'config', createdAt: now, updatedAt: now,
      });
      if (created === 'created') report.created.push(config.clientId);
      continue;
    }
    if (existing.source === 'admin') {
      if (canonical(existing.config) !== canonical(config)) report.kept.push(config.clientId);
      continue;
    }
    if (canonical(existing.config) === canonical(config)) continue;
    const approved = config.variants.includes('standard') && (existing.approved || !existing.config.variants.includes('standard'));
    await store.update({ ...existing, config, approved, updatedAt: now });
    report.updated.push(config.clientId);
  }
  return report;
}
