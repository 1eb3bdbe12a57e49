// The webhooks feature (set up by compose/operator-features.ts): the admin API's webhooks
// (admin/webhook-admin.ts), the dispatcher that delivers the outbox (webhooks/dispatcher.ts) and its metrics
// (metrics/webhook-delivery.ts), both checking where a webhook leads with one resolver.
import { WebhookAdmin } from '../../admin/webhook-admin.js';
import type { StoredApplicationDirectory } from '../../applications/directory.js';
import type { ApplicationStore } from '../../stores/types.js';
import type { AuditLog } from '../../audit/log.js';
import type { LocalBlobKey, ServiceConfig } from '../../service-config.js';
import { webhookSecretBox, type WebhookSecretBox } from '../../webhooks/secret-box.js';
import type { WebhookStore } from '../../stores/types.js';
import { WEBHOOK_DELIVERY_DEFAULTS, webhookUrlRules } from '../../config/webhook-urls.js';
import { registerWebhookMetrics } from '../../metrics/webhook-delivery.js';
import type { MetricsRegistry } from '../../metrics/registry.js';
import { type ResolveHost, systemResolveHost } from '../../webhooks/destination.js';
import type { CredentialStore } from '../../stores/types.js';
import type { Logger } from '../../util/log.js';
import type { Runtime } from '../../util/runtime.js';
import { createDispatcher } from '../../webhooks/dispatcher.js';
import { endpointsOf } from '../../webhooks/events.js';
import type { OperatorFeature, WebhookWiring } from '../feature-types.js';

export interface WebhookWiringInput {
  readonly config: ServiceConfig;
  readonly applicationStore: ApplicationStore;
  readonly applications: StoredApplicationDirectory;
  /** The credential store the service uses (instrumented). */
  readonly credentials: CredentialStore;
  /** The same store, not instrumented: the dispatcher's polls stay out of the store-latency metrics. */
  readonly rawCredentials: CredentialStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  readonly log: Logger;
  readonly secrets?: ReadonlyMap<string, string>;
  /** The secrets file's local-blob keys (newest first): the stored signing secrets are sealed under them. */
  readonly keys: readonly LocalBlobKey[];
  readonly pollMs?: number;
  /** Where the delivery metrics go (none: not counted). */
  readonly registry?: MetricsRegistry;
  /** Resolves webhook hosts, when added and at every delivery (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
}

/** What AdminActions needs to check an application body's webhook URLs as the webhooks' own paths do. */
export function webhookActionRules(config: ServiceConfig, resolveHost: ResolveHost | undefined) {
  return { webhookRules: webhookUrlRules(config), ...(resolveHost ? { resolveHost } : {}) };
}

export function wireWebhooks(input: WebhookWiringInput): WebhookWiring {
  const { applicationStore, applications, credentials, rawCredentials, audit, runtime, log } = input;
  const delivery = input.config.webhookDelivery ?? WEBHOOK_DELIVERY_DEFAULTS;
  const urlRules = webhookUrlRules(input.config);
  const resolveHost = input.resolveHost ?? systemResolveHost;
  const secretBox = webhookSecretBox(input.keys, runtime.randomBytes);
  const webhooks = new WebhookAdmin({
    secretBox,
    applications: applicationStore,
    credentials,
    audit,
    runtime,
    urlRules,
    resolveHost,
    onChange: (clientId) => applications.invalidate(clientId),
  });
  const dispatcher = createDispatcher({
    outbox: rawCredentials.outbox,
    // Read from the stores, not the directory's cache: a webhook added a moment ago on another instance counts.
    endpoint: async (clientId, webhookId) => {
      const record = await applicationStore.get(clientId);
      if (record === undefined) return undefined;
      const stored = await rawCredentials.webhooks.list(clientId);
      return endpointsOf(record.config, stored).find((endpoint) => endpoint.id === webhookId);
    },
    secrets: input.secrets ?? new Map(),
    secretBox,
    runtime,
    log,
    maxAttempts: delivery.maxAttempts,
    timeoutMs: delivery.timeoutMs,
    destination: { allowPrivateAddresses: urlRules.allowPrivateAddresses, resolve: resolveHost },
    ...(input.registry
      ? { observer: registerWebhookMetrics(input.registry, () => rawCredentials.outbox.counts()) }
      : {}),
    ...(input.pollMs === undefined ? {} : { pollMs: input.pollMs }),
  });
  const startDelivery = async (): Promise<void> => {
    dispatcher.start();
    await sealStoredSecrets(rawCredentials.webhooks, secretBox, log);
  };
  return { webhooks, dispatcher, startDelivery };
}

/**
 * Seals every stored signing secret that is not sealed under the newest key: the clear ones of rows from
 * before sealing, and those sealed under an older key after a rotation (docs/admin.md). Each row is
 * replaced only if it did not change meanwhile; one whose key is gone is left (and said). Never rejects.
 */
export async function sealStoredSecrets(store: WebhookStore, box: WebhookSecretBox, log: Logger): Promise<number> {
  let sealed = 0;
  try {
    for (const webhook of await store.listAll()) {
      if (box.isCurrent(webhook.secret)) continue;
      const clear = box.open(webhook, webhook.secret);
      if (clear === undefined) {
        log.warn(
          { event: 'webhook_secret_unreadable', clientId: webhook.clientId, webhookId: webhook.id },
          "a webhook's signing secret does not open with the keys of the secrets file: its deliveries fail until the key is back (or add the webhook again)",
        );
        continue;
      }
      if (await store.replaceSecret(webhook.clientId, webhook.id, webhook.secret, box.seal(webhook, clear)))
        sealed += 1;
    }
    if (sealed > 0)
      log.info(
        { event: 'webhook_secrets_sealed', count: sealed },
        'webhook signing secrets sealed under the newest key',
      );
  } catch (error) {
    log.error(
      { event: 'webhook_secret_sealing_failed', error: error instanceof Error ? error.message : String(error) },
      'the stored webhook signing secrets could not all be sealed; the next start tries again',
    );
  }
  return sealed;
}

/** Webhooks: the admin API's webhooks and dead letters, and the delivery of the outbox. */
export const webhooksFeature: OperatorFeature = {
  name: 'webhooks',
  configKeys: ['webhookDelivery', 'applications[].webhooks'],
  routes: [
    '/admin/applications/{clientId}/webhooks',
    '/admin/applications/{clientId}/webhooks/{webhookId}',
    '/admin/applications/{clientId}/marked-credentials',
    '/admin/webhooks/dead-letters',
    '/admin/webhooks/dead-letters/{id}/resend',
  ],
  stores: ['applications', 'audit'],
  provides: ['webhooks'],
  setup(context) {
    const { input } = context;
    const wiring = wireWebhooks({
      config: input.config,
      applicationStore: context.need('applicationStore'),
      applications: context.need('applications'),
      credentials: context.need('credentials'),
      rawCredentials: input.credentials,
      audit: context.need('audit'),
      runtime: input.runtime,
      log: input.log,
      ...(input.webhookSecrets ? { secrets: input.webhookSecrets } : {}),
      keys: input.secrets.localBlobKeys,
      ...(input.webhookPollMs === undefined ? {} : { pollMs: input.webhookPollMs }),
      ...(input.resolveHost ? { resolveHost: input.resolveHost } : {}),
      registry: context.need('registry'),
    });
    context.provide('webhooks', wiring);
    return {
      start: () => void wiring.startDelivery(),
      closers: [{ name: 'webhook-delivery', close: () => wiring.dispatcher.stop() }],
    };
  },
};
