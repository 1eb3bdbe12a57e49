// The HTTP app of the four operations from its parts: the last step of `composeService` (service.ts), and
// the whole service of a test (test/support/harness.ts) or a benchmark, which swaps the parts it controls
// (clock and randomness, stores, trust, hooks, the key cache) and takes the service's wiring for the rest,
// so that no test builds the object graph by hand.
import type { ApplicationConfig, ServiceConfig } from '../service-config.js';
import type { Secrets } from '../service-config.js';
import { createApplicationDirectory } from '../applications/config-directory.js';
import { buildApp, type App, type AppOptions } from '../http/app.js';
import type { ServiceHooks } from '../service.js';
import type { ApplicationDirectory, ServiceDeps } from '../ceremonies/deps.js';
import { MemoryChallengeStore } from '../stores/memory/challenges.js';
import { MemoryCredentialStore } from '../stores/memory/credentials.js';
import type { ChallengeStore, CredentialStore } from '../stores/types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';

export interface AppParts {
  readonly config: ServiceConfig;
  readonly secrets: Secrets;
  readonly runtime: Runtime;
  readonly log: Logger;
  /** Default: the applications of `config`, each with the trust `buildTrust` makes of its policy. */
  readonly applications?: ApplicationDirectory;
  /** Default: the anchors and metadata files each policy names (webauthn/trust.ts loadTrustEvaluator). */
  readonly buildTrust?: (policy: ApplicationConfig['attestation']) => TrustEvaluator;
  /** Default: the memory stores (the reference implementations), on the runtime's clock. */
  readonly credentials?: CredentialStore;
  readonly challenges?: ChallengeStore;
  readonly hooks?: ServiceHooks;
  /** The rest of what the app may be given (ML-DSA verifier, tracer), as `ServiceDeps` names it. */
  readonly extra?: Partial<Pick<ServiceDeps, 'mlDsa' | 'tracer'>>;
  readonly app?: AppOptions;
}

export interface ComposedApp {
  readonly deps: ServiceDeps;
  readonly app: App;
}

export function composeApp(parts: AppParts): ComposedApp {
  const deps: ServiceDeps = {
    config: parts.config,
    applications: parts.applications ?? createApplicationDirectory(parts.config.applications, parts.buildTrust),
    credentials: parts.credentials ?? new MemoryCredentialStore(),
    challenges: parts.challenges ?? new MemoryChallengeStore({ clock: parts.runtime.now }),
    secrets: parts.secrets,
    runtime: parts.runtime,
    log: parts.log,
    ...(parts.hooks ? { hooks: parts.hooks } : {}),
    ...parts.extra,
  };
  return { deps, app: buildApp(deps, parts.app) };
}
