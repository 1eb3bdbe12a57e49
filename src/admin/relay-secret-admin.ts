// The admin API's and CLI's relay secrets (docs/admin.md "Relay secrets"): an application's secrets listed
// (the config file's and those created here: id, source, created, last used; never a secret or a hash),
// one created (32 random bytes, answered once; only its SHA-256 is kept), one revoked by id. The first
// secret sets the application's `requireRelaySecret`, which no revocation unsets. Every change is audited,
// never with the secret. Applications from the config file and from the database alike.
import { createHash } from 'node:crypto';
import type { AuditLog } from '../audit/log.js';
import type {
  RelaySecretCreatedSchema,
  RelaySecretRevokedSchema,
  RelaySecretSchema,
} from '../schemas/relay-secret-shapes.js';
import type { Shape } from '../schemas/typebox.js';
import type { ApplicationStore } from '../stores/types.js';
import type { RelaySecretStore } from '../stores/relay-secret-types.js';
import type { Runtime } from '../util/runtime.js';
import { newRelaySecret, relaySecretHash } from '../config/relay-secret-entries.js';
import { type Actor, audited } from './audited.js';
import { AdminError } from './errors.js';

export type RelaySecretView = Shape<typeof RelaySecretSchema>;
export type RelaySecretCreated = Shape<typeof RelaySecretCreatedSchema>;
export type RelaySecretRevoked = Shape<typeof RelaySecretRevokedSchema>;

/** The revoke answer's warning when no secret is left (docs/admin.md "Relay secrets"). */
export const NO_SECRET_LEFT =
  'This application has no relay secret left and still requires one: every call of its relay is refused with 401 until a new secret is created (admin relay-secret create, POST …/relay-secrets).';

/** Created secrets an application may have at once (each request compares against every one). */
export const MAX_CREATED_RELAY_SECRETS = 10;

export interface RelaySecretAdminDeps {
  readonly applications: ApplicationStore;
  readonly secrets: RelaySecretStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  /** Uses this instance noted and has not written yet (applications/relay-secret-usage.ts), by hash. */
  readonly pendingUses?: (clientId: string) => ReadonlyMap<string, number>;
  /** Told after a create or revoke, so this instance's directory drops the application's cached secrets. */
  readonly onChange?: (clientId: string) => void;
}

/** The id of a config file's secret: derived from its hash (stable across restarts), never the hash itself. */
export function configSecretId(hash: string): string {
  return `cfg_${createHash('sha256').update(`relay-secret-id\n${hash}`).digest('hex').slice(0, 24)}`;
}

const iso = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());

export class RelaySecretAdmin {
  constructor(private readonly deps: RelaySecretAdminDeps) {}

  async list(clientId: string): Promise<{ relaySecrets: RelaySecretView[] }> {
    const record = await this.#record(clientId);
    const [created, stored] = await Promise.all([
      this.deps.secrets.list(clientId),
      this.deps.secrets.lastUses(clientId),
    ]);
    const pending = this.deps.pendingUses?.(clientId) ?? new Map<string, number>();
    const lastUse = (hash: string) => {
      const times = [stored.get(hash), pending.get(hash)].filter((t): t is number => t !== undefined);
      return times.length === 0 ? undefined : Math.max(...times);
    };
    const fromFile = [...new Set(record.config.relaySecrets ?? [])].map(
      (hash): RelaySecretView => ({
        id: configSecretId(hash),
        clientId,
        source: 'config',
        createdAt: null,
        lastUsedAt: iso(lastUse(hash)),
      }),
    );
    const made = created.map(
      (secret): RelaySecretView => ({
        id: secret.id,
        clientId,
        source: 'admin',
        createdAt: iso(secret.createdAt),
        lastUsedAt: iso(lastUse(secret.hash)),
      }),
    );
    return { relaySecrets: [...fromFile, ...made] };
  }

  /** Nothing to choose (the admin API's body is `{}`, RelaySecretInputSchema). The secret is in this answer only. */
  create(actor: Actor, clientId: string): Promise<RelaySecretCreated> {
    return audited(this.deps.audit, actor, 'relay-secret.create', { clientId }, async (note) => {
      await this.#record(clientId);
      if ((await this.deps.secrets.list(clientId)).length >= MAX_CREATED_RELAY_SECRETS)
        throw new AdminError('RELAY_SECRET_LIMIT');
      const { runtime } = this.deps;
      const secret = newRelaySecret(runtime.randomBytes);
      const created = {
        id: `rs_${runtime.randomBytes(12).toString('hex')}`,
        clientId,
        hash: relaySecretHash(secret),
        createdAt: runtime.now(),
      };
      // Required from the first secret on: revoking them all later refuses every call, never opens them.
      await this.#requireSecret(clientId);
      await this.deps.secrets.create(created);
      this.deps.onChange?.(clientId);
      note({ details: { relaySecretId: created.id } });
      return {
        id: created.id,
        clientId,
        source: 'admin',
        createdAt: iso(created.createdAt)!,
        lastUsedAt: null,
        secret,
      };
    });
  }

  /**
   * Revokes a secret created here; the config file's are changed there (409 RELAY_SECRET_FROM_CONFIG). The
   * application keeps requiring a secret: revoking the last one refuses every call until a new one exists,
   * which the answer's `remaining: 0` and `warning` say (rotation: create, deploy, then revoke).
   */
  revoke(actor: Actor, clientId: string, id: string): Promise<RelaySecretRevoked> {
    return audited(this.deps.audit, actor, 'relay-secret.revoke', { clientId, target: id }, async (note) => {
      const record = await this.#record(clientId);
      const fromFile = new Set(record.config.relaySecrets ?? []);
      if ([...fromFile].some((hash) => configSecretId(hash) === id)) throw new AdminError('RELAY_SECRET_FROM_CONFIG');
      if (!(await this.deps.secrets.list(clientId)).some((secret) => secret.id === id))
        throw new AdminError('RELAY_SECRET_NOT_FOUND');
      // Before the delete: an application whose secrets predate the setting is marked on its first revocation.
      await this.#requireSecret(clientId);
      if (!(await this.deps.secrets.delete(clientId, id))) throw new AdminError('RELAY_SECRET_NOT_FOUND');
      this.deps.onChange?.(clientId);
      const remaining = fromFile.size + (await this.deps.secrets.list(clientId)).length;
      note({ details: { remaining } });
      return remaining > 0
        ? { revoked: true, id, remaining }
        : { revoked: true, id, remaining, warning: NO_SECRET_LEFT };
    });
  }

  /** Sets the application's `requireRelaySecret` (stored), unless it is set already. */
  async #requireSecret(clientId: string): Promise<void> {
    const record = await this.#record(clientId);
    if (record.config.requireRelaySecret === true) return;
    const config = { ...record.config, requireRelaySecret: true };
    if (!(await this.deps.applications.update({ ...record, config, updatedAt: this.deps.runtime.now() })))
      throw new AdminError('APPLICATION_NOT_FOUND');
  }

  async #record(clientId: string) {
    const record = await this.deps.applications.get(clientId);
    if (!record) throw new AdminError('APPLICATION_NOT_FOUND');
    return record;
  }
}
