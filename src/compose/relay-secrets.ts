// Relay secrets created through the admin API or CLI, wired for a running service: the usage recorder (last
// uses noted per request, written in batches, flushed at shutdown) and the admin side (list, create, revoke),
// which tells this instance's directory at once; other instances see a change when their directory
// refreshes the application (`applications.cacheMs`).
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
