// What `passkey-server admin …` needs, from the configuration file: the token file, and (for the other
// commands) the configured credential store, the application, audit and relay-secret stores of the same
// database, and the secrets (the user-handle key lets credentials be listed by username). The config file's
// applications are seeded first, exactly as at service start, so the CLI and the service agree on what exists.
// What the CLI enables or changes (seeding a changed config file included) has its passkeys marked as a
// metadata reload marks them (applications/compromised.ts): a running service would not mark them before its
// next reload.
import { POST_QUANTUM_ALGORITHMS } from '../webauthn/cose.js';
import type { ServiceConfig } from '../service-config.js';
import { loadConfig } from '../config/load.js';
import { loadSecrets } from '../secrets/load.js';
import { openCredentialStore } from '../stores/open.js';
import { systemRuntime, type Runtime } from '../util/runtime.js';
import { AuditLog } from '../audit/log.js';
import type { AdminCliDeps } from '../admin/cli.js';
import { seedApplications, StoredApplicationDirectory, type SeedReport } from '../applications/directory.js';
import { markStoredApplications } from '../applications/compromised.js';
import { loadTrustEvaluator } from '../webauthn/trust.js';
import { createLogger } from '../util/log.js';
import { openOpsStores } from './stores.js';
import { AdminActions } from '../admin/actions.js';
import { defaultOpsOptions } from '../config/ops.js';
import { FileAdminTokenStore } from '../admin/tokens.js';
import { RelaySecretAdmin } from '../admin/relay-secret-admin.js';
import { webhookUrlRules } from '../config/webhook-urls.js';
import type { ResolveHost } from '../webhooks/destination.js';
import { webhookSecretBox } from '../webhooks/secret-box.js';

export interface AdminCliEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly runtime?: Runtime;
  /** Resolves the hosts of webhook URLs an application body sets (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
}

export function adminCliDeps(environment: AdminCliEnvironment): AdminCliDeps {
  const runtime = environment.runtime ?? systemRuntime;
  const config = (file: string | undefined) => loadConfig({ file, env: environment.env, cwd: environment.cwd });
  // The loader always sets `ops`; a configuration without it is one built by hand: the defaults.
  const options = (c: ServiceConfig) => c.ops ?? defaultOpsOptions(c.dataDir);
  return {
    tokens: async (file) => new FileAdminTokenStore(options(config(file)).admin.tokensFile, runtime),
    open: async (file) => {
      const c = config(file);
      const secrets = loadSecrets({ config: c, env: environment.env, randomBytes: runtime.randomBytes });
      const credentials = await openCredentialStore(c);
      // biome-ignore lint/suspicious/noImplicitAnyLet: its type follows the assignment, which may throw
      let stores;
      let seeded: SeedReport;
      try {
        stores = await openOpsStores(c, { secretBox: webhookSecretBox(secrets.localBlobKeys, runtime.randomBytes) });
        seeded = await seedApplications(stores.applications, c.applications, runtime.now());
      } catch (error) {
        await credentials.close().catch(() => undefined);
        await stores?.close().catch(() => undefined);
        throw error;
      }
      const audit = new AuditLog(stores.audit, runtime);
      const directory = new StoredApplicationDirectory({
        store: stores.applications,
        buildTrust: (policy) => loadTrustEvaluator(policy, { now: new Date(runtime.now()) }),
        now: runtime.now,
        cacheMs: 0,
        webhooks: credentials.webhooks,
      });
      const marking = { directory, store: stores.applications, credentials, runtime, audit, log: createLogger() };
      const markCompromised = (clientId: string) => markStoredApplications(marking, [clientId]);
      const changed = [...seeded.created, ...seeded.updated];
      if (changed.length > 0) await markStoredApplications(marking, changed);
      const actions = new AdminActions({
        applications: stores.applications,
        credentials,
        audit,
        runtime,
        userHandleKey: secrets.userHandleKey,
        baseDir: c.dataDir,
        webhookRules: webhookUrlRules(c),
        ...(environment.resolveHost ? { resolveHost: environment.resolveHost } : {}),
        postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
        markCompromised,
        // A deleted application's created relay secrets go with it (a config file's may come back at the next start).
        onApplicationChange: async (clientId, deleted) => {
          if (deleted) await stores.relaySecrets.deleteByApplication(clientId);
        },
      });
      const relaySecrets = new RelaySecretAdmin({
        applications: stores.applications,
        secrets: stores.relaySecrets,
        audit,
        runtime,
      });
      return {
        actions,
        audit,
        relaySecrets,
        close: async () => {
          await Promise.allSettled([credentials.close(), stores.close()]);
        },
      };
    },
  };
}
