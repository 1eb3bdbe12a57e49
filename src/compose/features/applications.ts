// The stored application directory (docs/admin.md "Applications"): the application store, seeded from the
// config file at every start (an application changed through the admin API or CLI since keeps its stored
// version, said once in the log), and the directory the four operations read, cached `applications.cacheMs`.
import { StoredApplicationDirectory, seedApplications } from '../../applications/directory.js';
import { storeCheck } from '../../runtime/readiness.js';
import type { OperatorFeature } from '../feature-types.js';

export const applicationsFeature: OperatorFeature = {
  name: 'applications',
  configKeys: ['applications', 'applicationCacheMs'],
  routes: [],
  stores: ['applications', 'relaySecrets'],
  provides: ['applicationStore', 'seed', 'applications'],
  async setup(context) {
    const { input } = context;
    const { runtime, log } = input;
    const store = context.need('instrument')('applications', context.stores.applications);
    const seed = await seedApplications(store, input.config.applications, runtime.now());
    for (const clientId of seed.kept) {
      log.warn(
        { event: 'application_config_ignored', clientId },
        'the config file lists this application, but it was changed through the admin API or CLI since; the stored version is used',
      );
    }
    const applications = new StoredApplicationDirectory({
      store,
      buildTrust: input.buildTrust,
      now: runtime.now,
      cacheMs: input.options.applications.cacheMs,
      webhooks: input.credentials.webhooks,
      relaySecrets: context.stores.relaySecrets,
      onRelaySecretUse: (clientId, hash) => context.need('relaySecrets').usage.note(clientId, hash),
    });
    context.provide('applicationStore', store);
    context.provide('seed', seed);
    context.provide('applications', applications);
    return {
      readiness: [storeCheck('applications', store)],
      closers: [{ name: 'applications', close: () => store.close() }],
    };
  },
};
