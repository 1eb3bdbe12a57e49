// The ApplicationDirectory from configuration: every application prepared once at start (trust anchors
// read and parsed, metadata indexed), then looked up by Client ID per request without I/O.

import type { ApplicationConfig } from './config.js';
import type { Application, ApplicationDirectory } from './service.js';
import type { TrustEvaluator } from './webauthn/attestation/types.js';
import { loadTrustEvaluator } from './webauthn/trust.js';

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
