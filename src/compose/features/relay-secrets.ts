// Relay secrets created through the admin API or CLI, wired for a running service: the usage recorder (last
// uses noted per request, written in batches, flushed at shutdown) and the admin side (list, create, revoke),
// which tells this instance's directory at once; other instances see a change when their directory
// refreshes the application (`applications.cacheMs`). At start, the applications with created secrets are
// marked as requiring one, and one warning line per application that has no relay secret at all (neither
// the config file's nor a created one).
import { RelaySecretAdmin } from '../../admin/relay-secret-admin.js';
import { RelaySecretUsage } from '../../applications/relay-secret-usage.js';
import type { AuditLog } from '../../audit/log.js';
import { MemoryRelaySecretStore } from '../../stores/memory/relay-secrets.js';
import type { RelaySecretStore } from '../../stores/relay-secret-types.js';
import type { ApplicationStore } from '../../stores/types.js';
import type { Logger } from '../../util/log.js';
import type { Runtime } from '../../util/runtime.js';
import type { OperatorFeature, RelaySecretWiring } from '../feature-types.js';

export interface RelaySecretWiringInput {
  /** Default: memory (tests; a service passes its database's, compose/stores.ts). */
  readonly relaySecretStore?: RelaySecretStore | undefined;
  readonly applications: ApplicationStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  readonly log?: Logger;
  /** Between writes of the last uses (default 10 000 ms). */
  readonly relaySecretFlushMs?: number | undefined;
  /** Drops an application from this instance's directory cache (StoredApplicationDirectory.invalidate). */
  readonly invalidate: (clientId: string) => void;
}

export function wireRelaySecrets(input: RelaySecretWiringInput): RelaySecretWiring {
  const store = input.relaySecretStore ?? new MemoryRelaySecretStore();
  const usage = new RelaySecretUsage({
    store,
    now: input.runtime.now,
    ...(input.relaySecretFlushMs === undefined ? {} : { flushMs: input.relaySecretFlushMs }),
    ...(input.log ? { log: input.log } : {}),
  });
  const admin = new RelaySecretAdmin({
    applications: input.applications,
    secrets: store,
    audit: input.audit,
    runtime: input.runtime,
    pendingUses: (clientId) => usage.pending(clientId),
    onChange: input.invalidate,
  });
  return {
    store,
    usage,
    admin,
    close: async () => {
      await usage.stop();
      await store.close();
    },
  };
}

/**
 * At start, after seeding: marks `requireRelaySecret` on every application that has a created secret and
 * is not marked yet (secrets created before the setting existed), so that revoking them never opens it;
 * then logs `relay_secrets_none` once per enabled application (the config file's, seeded, and those
 * created through the admin API) that has no secret and never had one, and `relay_secrets_required_none`
 * for one that requires a secret and has none left (its calls are all refused). Never throws: a store that
 * cannot be read or written here has already been used at start, and a warning must not stop the service.
 */
export async function warnUnguardedApplications(
  log: Logger,
  applications: Pick<ApplicationStore, 'list' | 'update'>,
  secrets: Pick<RelaySecretStore, 'list'>,
  now: () => number,
): Promise<void> {
  try {
    for (const record of await applications.list()) {
      const clientId = record.config.clientId;
      const created = (await secrets.list(clientId)).length;
      let required = record.config.requireRelaySecret === true;
      if (created > 0 && !required) {
        await applications.update({
          ...record,
          config: { ...record.config, requireRelaySecret: true },
          updatedAt: now(),
        });
        required = true;
      }
      if (record.disabled || (record.config.relaySecrets ?? []).length > 0 || created > 0) continue;
      if (required) {
        log.warn(
          { event: 'relay_secrets_required_none', clientId },
          'this application requires a relay secret and has none left: every call of its relay is refused with 401 until one is created (`admin relay-secret create`, docs/admin.md "Relay secrets")',
        );
        continue;
      }
      log.warn(
        { event: 'relay_secrets_none', clientId },
        'this application has no relay secrets: anyone who knows its Client ID can call its operations (applications[].relaySecrets or `admin relay-secret create`, docs/api.md "Relay secrets")',
      );
    }
  } catch (error) {
    log.warn(
      { event: 'relay_secrets_unchecked', error: error instanceof Error ? error.message : String(error) },
      'could not check which applications have relay secrets',
    );
  }
}

/** Relay secrets created through the admin API or CLI: their admin side and the recorder of their last uses. */
export const relaySecretsFeature: OperatorFeature = {
  name: 'relay-secrets',
  configKeys: ['applications[].relaySecrets', 'applications[].requireRelaySecret'],
  routes: ['/admin/applications/{clientId}/relay-secrets', '/admin/applications/{clientId}/relay-secrets/{id}'],
  stores: ['relaySecrets', 'applications'],
  provides: ['relaySecrets'],
  setup(context) {
    const { input } = context;
    const wiring = wireRelaySecrets({
      relaySecretStore: context.stores.relaySecrets,
      applications: context.need('applicationStore'),
      audit: context.need('audit'),
      runtime: input.runtime,
      log: input.log,
      relaySecretFlushMs: input.relaySecretFlushMs,
      invalidate: (clientId) => context.need('applications').invalidate(clientId),
    });
    context.provide('relaySecrets', wiring);
    return { start: () => wiring.usage.start(), closers: [{ name: 'relay-secrets', close: () => wiring.close() }] };
  },
};
