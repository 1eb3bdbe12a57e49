// The operator features (everything a running service has beside the four operations), one module each in
// compose/features/ (docs/architecture.md "Adding an operator feature"), set up here in the order listed:
// each declares its config keys, admin routes and stores, provides what later ones need, and gives its
// hooks, readiness checks, start and closers. compose/service.ts then builds the HTTP app with
// `applications`, `credentials`, `challenges` and `hooks` from here.
import { composeHooks } from '../runtime/hooks.js';
import { Readiness, serviceStoreChecks } from '../runtime/readiness.js';
import { gracefulShutdown } from '../runtime/shutdown.js';
import { createFeatureContext } from './feature-context.js';
import type { FeatureParts, OperatorFeature, OperatorFeatures, OperatorFeaturesInput } from './feature-types.js';
import { adminListenerFeature } from './features/admin-listener.js';
import { applicationsFeature } from './features/applications.js';
import { auditFeature } from './features/audit.js';
import { compromisedAuthenticatorsFeature } from './features/compromised-authenticators.js';
import { metadataFeature } from './features/metadata.js';
import { metricsFeature } from './features/metrics.js';
import { rateLimitsFeature } from './features/rate-limits.js';
import { relaySecretsFeature } from './features/relay-secrets.js';
import { requestLogFeature } from './features/request-log.js';
import { webhooksFeature } from './features/webhooks.js';

export type { OperatorFeatures, OperatorFeaturesInput } from './feature-types.js';

/** The features, in the order they are set up (each after those it needs); hooks run in this order too. */
export const OPERATOR_FEATURES: readonly OperatorFeature[] = [
  requestLogFeature,
  metricsFeature,
  applicationsFeature,
  auditFeature,
  relaySecretsFeature,
  rateLimitsFeature,
  webhooksFeature,
  compromisedAuthenticatorsFeature,
  metadataFeature,
  adminListenerFeature,
];

export async function startOperatorFeatures(input: OperatorFeaturesInput): Promise<OperatorFeatures> {
  const context = createFeatureContext(input);
  const parts: FeatureParts[] = [];
  try {
    for (const feature of OPERATOR_FEATURES) parts.push(await feature.setup(context));
    const readiness = new Readiness([
      ...serviceStoreChecks({ credentials: input.credentials, challenges: input.challenges }),
      ...parts.flatMap((part) => part.readiness ?? []),
      ...(input.readinessChecks ?? []),
    ]);
    context.provide('readiness', readiness);
    for (const part of parts) await part.open?.();
  } catch (error) {
    // A port taken, a store unreachable: release what was opened here; service.ts reports the error.
    for (const part of [...parts].reverse()) await part.abort?.().catch(() => undefined);
    throw error;
  }
  for (const part of parts) part.start?.();

  const { need } = context;
  const [admin, readiness, webhooks] = [need('admin'), need('readiness'), need('webhooks')];
  const closeService = input.closeStores
    ? [{ name: 'credentials+challenges', close: input.closeStores }]
    : [
        { name: 'credentials', close: () => input.credentials.close() },
        { name: 'challenges', close: () => input.challenges.close() },
      ];
  return {
    registry: need('registry'),
    applications: need('applications'),
    credentials: need('credentials'),
    challenges: need('challenges'),
    hooks: composeHooks(...parts.flatMap((part) => part.hooks ?? [])),
    audit: need('audit'),
    actions: need('actions'),
    webhooks: webhooks.webhooks,
    dispatcher: webhooks.dispatcher,
    readiness,
    seed: need('seed'),
    admin,
    reloadMetadata: need('reloadMetadata'),
    metadataFiles: need('metadataFiles'),
    shutdown: (servers) =>
      gracefulShutdown({
        servers: admin ? [...servers, admin.server] : servers,
        beforeClose: () => readiness.drain(),
        deadlineMs: input.options.shutdownDeadlineMs,
        log: input.log,
        // A feature closes before those it needs (reverse order), the service's own stores last.
        closers: [...[...parts].reverse().flatMap((part) => part.closers ?? []), ...closeService],
      }),
  };
}
