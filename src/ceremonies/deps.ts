// What the HTTP app and the ceremonies receive from the composition step (compose/service.ts). Built once at
// start; nothing in here is global. Tests build their own with memory stores and a fixed clock.

import type { ApplicationConfig, Secrets, ServiceConfig } from '../service-config.js';
import type { ServiceHooks, Tracer } from '../service.js';
import type { ChallengeStore, CredentialStore, WebhookEndpoint } from '../stores/types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import type { MlDsaVerifier } from '../webauthn/ml-dsa.js';

/** An application as the ceremonies use it: its configuration plus what was prepared from it at start. */
export interface Application extends ApplicationConfig {
  // `relaySecrets` (from ApplicationConfig): for a stored application, the config file's and the stored ones.
  /** Built once from `attestation` (anchors read and parsed at start, metadata indexed). */
  readonly trust: TrustEvaluator;
  /** Its webhooks: the config file's and those the admin API added (absent: none). */
  readonly webhookEndpoints?: readonly WebhookEndpoint[];
}

export interface ApplicationDirectory {
  /** undefined for an unknown or disabled Client ID. */
  find(clientId: string): Promise<Application | undefined>;
  /**
   * Told that a request carried this relay secret (`sha256:<hex>`, one of the application's), for its
   * "last used" (applications/relay-secret-usage.ts); must not do I/O on the request's path.
   */
  noteRelaySecretUse?(clientId: string, secret: string): void;
}

export interface ServiceDeps {
  readonly config: ServiceConfig;
  readonly applications: ApplicationDirectory;
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  readonly secrets: Secrets;
  readonly runtime: Runtime;
  readonly log: Logger;
  readonly hooks?: ServiceHooks;
  readonly tracer?: Tracer;
  /** Checks ML-DSA signatures (default: node:crypto where the runtime has ML-DSA, else pure JavaScript). */
  readonly mlDsa?: MlDsaVerifier;
}
