// The admin listener (docs/admin.md): the admin actions the API and the CLI share, the token store, the
// OpenAPI document, and the listener itself, on its own port (`admin.*`), opened once every other feature
// is set up: it serves what they provide (webhooks, relay secrets, metadata reload, overview, metrics).
import { AdminActions } from '../../admin/actions.js';
import { openApiDocument } from '../../admin/openapi.js';
import { startAdminServer } from '../../admin/server.js';
import { FileAdminTokenStore } from '../../admin/tokens.js';
import { POST_QUANTUM_ALGORITHMS } from '../../webauthn/cose.js';
import type { OperatorFeature } from '../feature-types.js';
import { webhookActionRules } from './webhooks.js';

export const adminListenerFeature: OperatorFeature = {
  name: 'admin-listener',
  configKeys: ['admin'],
  routes: ['/health', '/ready', '/openapi.json', '/admin/applications', '/admin/applications/{clientId}'],
  stores: ['applications', 'audit'],
  provides: ['actions', 'admin'],
  setup(context) {
    const { input } = context;
    const { options, runtime, log } = input;
    const [audit, relaySecrets] = [context.need('audit'), context.need('relaySecrets')];
    const invalidate = (clientId: string) => context.need('applications').invalidate(clientId);
    const actions = new AdminActions({
      applications: context.need('applicationStore'),
      credentials: context.need('credentials'),
      audit,
      runtime,
      userHandleKey: input.secrets.userHandleKey,
      baseDir: input.config.dataDir,
      ...webhookActionRules(input.config, input.resolveHost),
      postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
      // Enabling or changing an application marks its passkeys as a metadata reload does (issue 35).
      markCompromised: (clientId) => context.need('markCompromised')([clientId]),
      onApplicationChange: async (clientId, deleted) => {
        if (deleted) await relaySecrets.store.deleteByApplication(clientId);
        invalidate(clientId);
      },
    });
    context.provide('actions', actions);
    if (!options.admin.enabled) {
      context.provide('admin', null);
      return {};
    }
    const tokens = input.tokens ?? new FileAdminTokenStore(options.admin.tokensFile, runtime);
    const document = openApiDocument({
      limits: input.config.limits,
      ...(input.version ? { version: input.version } : {}),
    });
    return {
      open: async () => {
        const admin = await startAdminServer({
          host: options.admin.host,
          port: options.admin.port,
          metricsRequireToken: options.admin.metricsRequireToken,
          allowedHosts: options.admin.allowedHosts,
          actions,
          audit,
          tokens,
          readiness: context.need('readiness'),
          registry: context.need('registry'),
          runtime,
          log,
          openapi: () => document,
          reloadMetadata: context.need('reloadMetadata'),
          overview: context.need('overview'),
          webhooks: context.need('webhooks').webhooks,
          relaySecrets: relaySecrets.admin,
        });
        context.provide('admin', admin);
      },
    };
  },
};
