// The ApplicationDirectory from configuration: every application prepared once at start (trust anchors
// read and parsed, metadata indexed), then looked up by Client ID per request without I/O. `prepareTrust`
// does the start-time part for the stored directory of the operator features, and reloads the metadata
// BLOBs of a running service (`reloadMetadata`, called by src/applications/trust-reload.ts).

import type { ApplicationConfig, AttestationPolicy } from '../service-config.js';
import { ConfigError } from '../config/errors.js';
import { FidoError } from '../errors/catalogue.js';
import type { Application, ApplicationDirectory } from '../ceremonies/deps.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import {
  loadTrustEvaluator,
  type LoadedTrustEvaluator,
  type LoadOptions,
  type MetadataInfo,
} from '../webauthn/trust.js';

export interface ConfigApplicationDirectory extends ApplicationDirectory {
  /** Every application, in configuration order (the CLI's `apps list`, the demo). */
  list(): readonly Application[];
}

export function createApplicationDirectory(
  configs: readonly ApplicationConfig[],
  buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator = loadTrustEvaluator,
): ConfigApplicationDirectory {
  const byClientId = new Map<string, Application>();
  for (const config of configs) {
    if (byClientId.has(config.clientId)) throw new Error(`duplicate Client ID ${JSON.stringify(config.clientId)}`);
    byClientId.set(config.clientId, Object.freeze({ ...config, trust: buildTrust(config.attestation) }));
  }
  const all = [...byClientId.values()];
  return {
    // A Map lookup: no prototype keys ("__proto__", "constructor") can resolve to something.
    find: async (clientId) => byClientId.get(clientId),
    list: () => all,
  };
}

/** One configured attestation policy that names a metadata BLOB, as a reload found it. */
export interface PolicyReload {
  readonly policy: AttestationPolicy;
  /** The configured applications with this policy. */
  readonly clientIds: readonly string[];
  /** The BLOB in use before the reload (null if the evaluator had none). */
  readonly before: MetadataInfo | null;
  /** The BLOB in use after it: the new one, or, when `error` is set, still the one before. */
  readonly after: MetadataInfo | null;
  /** Why the new BLOB was not taken (the previous evaluator stays in use). */
  readonly error?: unknown;
}

export interface PreparedTrust {
  /**
   * For the stored application directory: the evaluator of a configured policy (the latest loaded), others
   * built on demand at the runtime clock's time.
   */
  readonly buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /** What each configured application's metadata BLOB was at start (for the start log); only applications with one. */
  readonly metadata: readonly { readonly clientId: string; readonly info: MetadataInfo }[];
  /**
   * Reads the BLOB of every configured policy that names one again, verified at `now`. A policy whose BLOB
   * verifies gets its new evaluator (buildTrust returns it from then on); one whose BLOB does not keeps the
   * previous evaluator, and its result carries the error. Never throws for a BLOB or file problem.
   */
  reloadMetadata(now: Date): PolicyReload[];
}

export interface PrepareOptions {
  /** Reads a policy's files (default loadTrustEvaluator). */
  readonly load?: (policy: AttestationPolicy, options: LoadOptions) => LoadedTrustEvaluator;
  /** Epoch ms: the time at which evaluators built on demand check their BLOB (default Date.now). */
  readonly clock?: () => number;
}

/**
 * Builds the trust evaluator of every configured application once, at start, so that a metadata BLOB that
 * does not verify stops the start as a configuration problem (naming the application) instead of failing
 * requests later. Every application is tried, so all such problems are reported at once.
 */
export function prepareTrust(
  configs: readonly ApplicationConfig[],
  now: Date,
  /** Names the configuration in the error (the config file, or "built-in defaults"). */
  source: string,
  { load = loadTrustEvaluator, clock = Date.now }: PrepareOptions = {},
): PreparedTrust {
  // Keyed by canonical JSON, like the stored directory, so a policy read back from a store with its keys
  // reordered still finds its prepared evaluator.
  const built = new Map<string, LoadedTrustEvaluator>();
  const metadata: { clientId: string; info: MetadataInfo }[] = [];
  const problems: string[] = [];
  configs.forEach((config, index) => {
    const key = canonicalJson(config.attestation);
    try {
      const evaluator = load(config.attestation, { now });
      if (!built.has(key)) built.set(key, evaluator);
      if (evaluator.metadataInfo) metadata.push({ clientId: config.clientId, info: evaluator.metadataInfo });
    } catch (error) {
      if (!(error instanceof FidoError) || !error.code.startsWith('METADATA_BLOB_')) throw error;
      problems.push(
        `applications[${index}].attestation.metadata: ${config.attestation.metadata ?? 'the BLOB'} cannot be used ` +
          `(${error.code}${error.detail ? `: ${error.detail}` : ''}); ${metadataRemedy(error)}`,
      );
    }
  });
  if (problems.length > 0) throw new ConfigError(problems, source);
  return {
    buildTrust: (policy) => built.get(canonicalJson(policy)) ?? load(policy, { now: new Date(clock()) }),
    metadata,
    reloadMetadata: (at) => reloadPolicies(configs, built, (policy) => load(policy, { now: at })),
  };
}

const REVOCATION_DOCS = 'docs/attestation.md, "Revocation of the BLOB\'s signing chain"';

/**
 * What the operator does about a metadata BLOB that cannot be used (the configuration error at start, the
 * failed reload's log line). A problem of the signing chain's CRLs is not fixed by another BLOB: the CRL
 * files need refreshing; a revoked chain needs a BLOB signed under another one.
 */
export function metadataRemedy(error: unknown): string {
  switch (error instanceof FidoError ? error.code : undefined) {
    case 'METADATA_BLOB_CRL_MISSING':
      return (
        "add a current CRL of that issuer to attestation.metadataCrls (fetched from the certificate's CRL distribution point, " +
        `which \`metadata check\` prints; ${REVOCATION_DOCS})`
      );
    case 'METADATA_BLOB_CRL_INVALID':
      return (
        "install current CRLs of the BLOB's signing chain as the attestation.metadataCrls files (fetched again from the CRL " +
        `distribution points \`metadata check\` prints; ${REVOCATION_DOCS})`
      );
    case 'METADATA_BLOB_CERTIFICATE_REVOKED':
      return `install a BLOB signed under an unrevoked chain (a current BLOB from the metadata service; ${REVOCATION_DOCS})`;
    default:
      return 'install a valid BLOB (docs/attestation.md)';
  }
}

/** Reloads each distinct configured policy that names a BLOB once; swaps in `built` only what loaded. */
function reloadPolicies(
  configs: readonly ApplicationConfig[],
  built: Map<string, LoadedTrustEvaluator>,
  load: (policy: AttestationPolicy) => LoadedTrustEvaluator,
): PolicyReload[] {
  const byKey = new Map<string, { policy: AttestationPolicy; clientIds: string[] }>();
  for (const config of configs) {
    if (config.attestation.metadata === null) continue;
    const key = canonicalJson(config.attestation);
    const entry = byKey.get(key) ?? { policy: config.attestation, clientIds: [] };
    entry.clientIds.push(config.clientId);
    byKey.set(key, entry);
  }
  return [...byKey].map(([key, { policy, clientIds }]) => {
    const before = built.get(key)?.metadataInfo ?? null;
    try {
      const evaluator = load(policy);
      built.set(key, evaluator);
      return { policy, clientIds, before, after: evaluator.metadataInfo };
    } catch (error) {
      // Whatever went wrong (a BLOB that does not verify, a file gone), the running service keeps the old one.
      return { policy, clientIds, before, after: before, error };
    }
  });
}
