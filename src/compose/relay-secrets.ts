// Relay secrets created through the admin API or CLI, wired for a running service: the usage recorder (last
// uses noted per request, written in batches, flushed at shutdown) and the admin side (list, create, revoke),
// which tells this instance's directory at once; other instances see a change when their directory
// refreshes the application (`applications.cacheMs`). At start, one warning line per application that
// has no relay secret at all (neither the config file's nor a created one).
import { RelaySecretAdmin } from '../admin/relay-secrets.js';
import { RelaySecretUsage } from '../applications/relay-secret-usage.js';
import type { AuditLog } from '../audit/log.js';
import { MemoryRelaySecretStore } from '../stores/memory/relay-secrets.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';
import type { ApplicationStore } from '../stores/types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';

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

export interface RelaySecretWiring {
  readonly store: RelaySecretStore;
  readonly usage: RelaySecretUsage;
  readonly admin: RelaySecretAdmin;
  /** Stops the recorder (writing what it holds), then closes the store. */
  close(): Promise<void>;
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
 * Logs `relay_secrets_none` once per enabled application of the store (the config file's, seeded, and those
 * created through the admin API) that has neither a config file secret nor a created one. Never throws: a
 * store that cannot be read here has already been read at start, and a warning must not stop the service.
 */
export async function warnUnguardedApplications(
  log: Logger,
  applications: Pick<ApplicationStore, 'list'>,
  secrets: Pick<RelaySecretStore, 'list'>,
): Promise<void> {
  try {
    for (const record of await applications.list()) {
      if (record.disabled || (record.config.relaySecrets ?? []).length > 0) continue;
      if ((await secrets.list(record.config.clientId)).length > 0) continue;
      log.warn(
        { event: 'relay_secrets_none', clientId: record.config.clientId },
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
