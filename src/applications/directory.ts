// The ApplicationDirectory of the four operations, backed by an ApplicationStore. Lookups are cached for a
// few seconds (every instance sees an admin change within `cacheMs`; the instance that made it at once),
// unknown Client IDs included, so a flood of made-up ids costs one store read each per interval at most.
// Trust evaluators are built once per distinct attestation policy; `reloadMetadataTrust` rebuilds those that
// read a metadata BLOB (a newer BLOB installed while the service runs: src/applications/trust-reload.ts).
import type { ApplicationConfig, AttestationPolicy } from '../service-config.js';
import { metadataFilesOf } from './metadata-watch.js';
import type { Application, ApplicationDirectory } from '../ceremonies/deps.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import type { ApplicationRecord, ApplicationStore } from '../stores/types.js';
import type { StoredWebhook, WebhookStore } from '../stores/types.js';
import { endpointsOf } from '../webhooks/events.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';

export interface StoredDirectoryOptions {
  readonly store: ApplicationStore;
  /**
   * Builds the trust evaluator of a policy (compose/service.ts passes prepareTrust's buildTrust). Called once per distinct
   * policy, and again for each policy with a metadata BLOB by `reloadMetadataTrust`.
   */
  readonly buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /** Epoch ms (runtime.now). */
  readonly now: () => number;
  /** How long a lookup is reused (default 5000 ms; 0 = always read the store). */
  readonly cacheMs?: number;
  /** Bound on cached lookups (default 10 000). */
  readonly maxCached?: number;
  /** The webhooks the admin API added, joined to each application's own (absent: only the config's). */
  readonly webhooks?: WebhookStore;
  /** The relay secrets the admin API created, joined to each application's own (absent: only the config's). */
  readonly relaySecrets?: Pick<RelaySecretStore, 'list'>;
  /** Told of each request's matching relay secret (applications/relay-secret-usage.ts; no I/O here). */
  readonly onRelaySecretUse?: (clientId: string, hash: string) => void;
}

interface CacheEntry {
  readonly application: Application | undefined;
  readonly expiresAt: number;
}

interface TrustEntry {
  readonly policy: AttestationPolicy;
  evaluator: TrustEvaluator;
  /** The Client IDs that used this evaluator (for the reload report). */
  readonly clientIds: Set<string>;
}

/** One evaluator `reloadMetadataTrust` rebuilt, or tried to. */
export interface TrustRebuild {
  readonly policy: AttestationPolicy;
  readonly clientIds: readonly string[];
  readonly before: TrustEvaluator;
  /** The evaluator in use from now on: the new one, or `before` when `error` is set. */
  readonly after: TrustEvaluator;
  readonly error?: unknown;
}

export class StoredApplicationDirectory implements ApplicationDirectory {
  readonly #options: StoredDirectoryOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #pending = new Map<string, Promise<Application | undefined>>();
  readonly #trust = new Map<string, TrustEntry>();
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
    const lookup = this.#load(clientId)
      .then((application) => {
        // An invalidation while the read was in flight makes its result stale: do not cache it.
        if (generation === this.#generation) this.#remember(clientId, application);
        this.#noteKnown(clientId, application !== undefined);
        return application;
      })
      .finally(() => this.#pending.delete(clientId));
    this.#pending.set(clientId, lookup);
    return lookup;
  }

  noteRelaySecretUse(clientId: string, secret: string): void {
    this.#options.onRelaySecretUse?.(clientId, secret);
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

  /**
   * Rebuilds every evaluator built so far whose policy names a metadata BLOB (through `buildTrust`, after
   * prepareTrust reloaded its own), then forgets every cached lookup, so the next ceremony of every such
   * application uses the evaluator of the BLOB now installed. An evaluator that cannot be rebuilt (its new
   * BLOB does not verify, its file is gone) stays in use; its result carries the error. Never throws.
   */
  reloadMetadataTrust(): TrustRebuild[] {
    const results: TrustRebuild[] = [];
    for (const entry of this.#trust.values()) {
      if (entry.policy.metadata === null) continue;
      const before = entry.evaluator;
      const clientIds = [...entry.clientIds];
      try {
        entry.evaluator = this.#options.buildTrust(entry.policy);
        results.push({ policy: entry.policy, clientIds, before, after: entry.evaluator });
      } catch (error) {
        results.push({ policy: entry.policy, clientIds, before, after: before, error });
      }
    }
    this.invalidate();
    return results;
  }

  /** The metadata files (BLOBs and their CRLs) of the policies built so far (the periodic check stats them). */
  metadataFiles(): string[] {
    return [...this.#trust.values()].flatMap((entry) => metadataFilesOf(entry.policy));
  }

  list(): Promise<ApplicationRecord[]> {
    return this.#options.store.list();
  }

  async #load(clientId: string): Promise<Application | undefined> {
    const record = await this.#options.store.get(clientId);
    if (record === undefined || record.disabled) return undefined;
    const [stored, secrets] = await Promise.all([
      this.#options.webhooks?.list(clientId) ?? [],
      this.#options.relaySecrets?.list(clientId) ?? [],
    ]);
    return this.toApplication(record, stored, secrets);
  }

  /** The Application the ceremonies see: the configuration with effective variants and its trust evaluator. */
  toApplication(
    record: ApplicationRecord,
    stored: readonly StoredWebhook[] = [],
    created: readonly { readonly hash: string }[] = [],
  ): Application {
    const key = canonicalJson(record.config.attestation);
    let entry = this.#trust.get(key);
    if (entry === undefined) {
      entry = {
        policy: record.config.attestation,
        evaluator: this.#options.buildTrust(record.config.attestation),
        clientIds: new Set(),
      };
      this.#trust.set(key, entry);
    }
    entry.clientIds.add(record.config.clientId);
    const webhookEndpoints = endpointsOf(record.config, stored);
    // The relay secret check accepts the config file's secrets and those the admin API or CLI created.
    const relaySecrets = [...(record.config.relaySecrets ?? []), ...created.map((secret) => secret.hash)];
    return Object.freeze({
      ...record.config,
      ...(relaySecrets.length > 0 ? { relaySecrets } : {}),
      variants: effectiveVariants(record),
      trust: entry.evaluator,
      ...(webhookEndpoints.length > 0 ? { webhookEndpoints } : {}),
    });
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
 * report says so, so the composition step can warn). Approval and disabling done through the admin API are kept.
 */
export async function seedApplications(
  store: ApplicationStore,
  configs: readonly ApplicationConfig[],
  now: number,
): Promise<SeedReport> {
  const report: SeedReport = { created: [], updated: [], kept: [] };
  for (const written of configs) {
    const existing = await store.get(written.clientId);
    const config = existing === undefined ? written : keepRequirement(written, existing.config);
    if (existing === undefined) {
      const created = await store.create({
        config,
        approved: config.variants.includes('standard'),
        disabled: false,
        source: 'config',
        createdAt: now,
        updatedAt: now,
      });
      if (created === 'created') report.created.push(config.clientId);
      continue;
    }
    if (existing.source === 'admin') {
      // Its relay secrets always come from the file (the admin API never sets them): a rotation in the file
      // must reach an application changed through the admin API too.
      const secrets = config.relaySecrets;
      const required = config.requireRelaySecret;
      const stored =
        canonicalJson(existing.config.relaySecrets ?? null) === canonicalJson(secrets ?? null) &&
        existing.config.requireRelaySecret === required
          ? existing
          : { ...existing, config: withRelaySecrets(existing.config, secrets, required), updatedAt: now };
      if (stored !== existing) await store.update(stored);
      if (canonicalJson(stored.config) !== canonicalJson(config)) report.kept.push(config.clientId);
      continue;
    }
    if (canonicalJson(existing.config) === canonicalJson(config)) continue;
    const approved =
      config.variants.includes('standard') && (existing.approved || !existing.config.variants.includes('standard'));
    await store.update({ ...existing, config, approved, updatedAt: now });
    report.updated.push(config.clientId);
  }
  return report;
}

/** The variants the four operations may use: `standard` only once approved. */
export function effectiveVariants(record: ApplicationRecord): ApplicationConfig['variants'] {
  return record.config.variants.filter((variant) => variant !== 'standard' || record.approved);
}

/** `config` with the config file's relay secrets (none: the key removed) and whether it requires one. */
function withRelaySecrets(
  config: ApplicationConfig,
  secrets: ApplicationConfig['relaySecrets'],
  required: ApplicationConfig['requireRelaySecret'],
): ApplicationConfig {
  const { relaySecrets: _stored, requireRelaySecret: _required, ...rest } = config;
  return {
    ...rest,
    ...(secrets === undefined ? {} : { relaySecrets: secrets }),
    ...(required === undefined ? {} : { requireRelaySecret: required }),
  };
}

/**
 * The file's application, still requiring a relay secret when the stored one did and the file says nothing
 * of it (docs/decisions.md "Relay secrets stay required"): a secret removed from the file is a revocation,
 * and a revocation never opens the application; only an explicit `requireRelaySecret: false` does.
 */
function keepRequirement(config: ApplicationConfig, stored: ApplicationConfig): ApplicationConfig {
  if (config.requireRelaySecret !== undefined || stored.requireRelaySecret !== true) return config;
  return { ...config, requireRelaySecret: true };
}
