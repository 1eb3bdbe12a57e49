// The ApplicationDirectory from configuration: every application prepared once at start (trust anchors
// read and parsed, metadata indexed), then looked up by Client ID per request without I/O. `prepareTrust`
// does the start-time part for the stored directory of the operations module.

import type { ApplicationConfig, AttestationPolicy } from './config.js';
import { ConfigError } from './config/errors.js';
import { FidoError } from './errors.js';
import type { Application, ApplicationDirectory } from './service.js';
import type { TrustEvaluator } from './webauthn/attestation/types.js';
import { loadTrustEvaluator, type LoadedTrustEvaluator, type LoadOptions, type MetadataInfo } from './webauthn/trust.js';

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

export interface PreparedTrust {
  /** For the stored application directory: the evaluators built at start, by policy; others built on demand. */
  readonly buildTrust: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /** What each configured application's metadata BLOB is (for the start log); only applications with one. */
  readonly metadata: readonly { readonly clientId: string; readonly info: MetadataInfo }[];
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
  load: (policy: AttestationPolicy, options: LoadOptions) => LoadedTrustEvaluator = loadTrustEvaluator,
): PreparedTrust {
  const built = new Map<string, TrustEvaluator>();
  const metadata: { clientId: string; info: MetadataInfo }[] = [];
  const problems: string[] = [];
  configs.forEach((config, index) => {
    const key = JSON.stringify(config.attestation);
    try {
      const evaluator = load(config.attestation, { now });
      if (!built.has(key)) built.set(key, evaluator);
      if (evaluator.metadataInfo) metadata.push({ clientId: config.clientId, info: evaluator.metadataInfo });
    } catch (error) {
      if (!(error instanceof FidoError) || !error.code.startsWith('METADATA_BLOB_')) throw error;
      problems.push(`applications[${index}].attestation.metadata: ${config.attestation.metadata ?? 'the BLOB'} cannot be used ` +
        `(${error.code}${error.detail ? `: ${error.detail}` : ''}); install a valid BLOB (docs/attestation.md)`);
    }
  });
  if (problems.length > 0) throw new ConfigError(problems, source);
  return {
    buildTrust: (policy) => built.get(JSON.stringify(policy)) ?? load(policy, { now: new Date() }),
    metadata,
  };
}
