// The shared context the operator features are set up on (compose/feature-types.ts): the input, the stores
// they share (the input's, or memory ones: applications then come from the config file at every start, the
// audit log is bounded and lost at restart), and what each feature provides to those after it.
import { MemoryApplicationStore } from '../stores/memory/applications.js';
import { MemoryAuditStore } from '../stores/memory/audit.js';
import { MemoryRelaySecretStore } from '../stores/memory/relay-secrets.js';
import type { FeatureContext, OperatorFeaturesInput, Provided } from './feature-types.js';

export function createFeatureContext(input: OperatorFeaturesInput): FeatureContext {
  const provided = new Map<keyof Provided, unknown>();
  return {
    input,
    stores: {
      applications: input.applicationStore ?? new MemoryApplicationStore(),
      audit: input.auditStore ?? new MemoryAuditStore({ maxEvents: input.options.audit.maxEvents }),
      relaySecrets: input.relaySecretStore ?? new MemoryRelaySecretStore(),
    },
    provide(key, value) {
      if (provided.has(key)) throw new Error(`operator features: ${key} is provided twice`);
      provided.set(key, value);
    },
    need<K extends keyof Provided>(key: K): Provided[K] {
      if (!provided.has(key)) throw new Error(`operator features: ${key} is needed before a feature provides it`);
      return provided.get(key) as Provided[K];
    },
  };
}
