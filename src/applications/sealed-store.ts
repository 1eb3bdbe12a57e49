// An application store whose records keep their webhooks' literal signing secrets sealed (docs/admin.md,
// "Webhook signing secrets at rest"): an application written by the admin API, the CLI or the seeding of the
// config file holds `applications[].webhooks[].secret` in its settings, and the database must not hold it in
// clear. Sealed on the way in (webhooks/secret-box.ts, bound to the Client ID), opened on the way out, so
// everything above the store sees the secret as written; `env:<NAME>` references are no secret and stay.
// `sealAll` seals the records written in clear before, or under an older key, at start.
import type { ApplicationRecord, ApplicationStore } from '../stores/types.js';
import { isSealed, type WebhookSecretBox } from '../webhooks/secret-box.js';

export interface SealedApplicationStore extends ApplicationStore {
  /**
   * Seals again every record holding a literal webhook secret that is not sealed under the newest key;
   * resolves to how many records were written. A record changed meanwhile is left to the next start.
   */
  sealAll(): Promise<number>;
}

const owner = (record: ApplicationRecord) => ({ clientId: record.config.clientId, id: 'application' });

/** The record with each literal webhook secret changed by `change` (others as they are). */
function withSecrets(record: ApplicationRecord, change: (secret: string) => string): ApplicationRecord {
  const { webhooks } = record.config;
  if (webhooks === undefined || !webhooks.some((w) => !w.secret.startsWith('env:'))) return record;
  return {
    ...record,
    config: {
      ...record.config,
      webhooks: webhooks.map((w) => (w.secret.startsWith('env:') ? w : { ...w, secret: change(w.secret) })),
    },
  };
}

export function sealedApplicationStore(store: ApplicationStore, box: WebhookSecretBox): SealedApplicationStore {
  const seal = (record: ApplicationRecord) =>
    withSecrets(record, (secret) => (isSealed(secret) ? secret : box.seal(owner(record), secret)));
  // A secret no configured key opens stays sealed: its deliveries fail saying so (webhooks/dispatcher.ts).
  const open = (record: ApplicationRecord) =>
    withSecrets(record, (secret) => (isSealed(secret) ? (box.open(owner(record), secret) ?? secret) : secret));
  const stale = (record: ApplicationRecord) =>
    (record.config.webhooks ?? []).some((w) => !w.secret.startsWith('env:') && !box.isCurrent(w.secret));
  return {
    get: async (clientId) => {
      const record = await store.get(clientId);
      return record === undefined ? undefined : open(record);
    },
    list: async () => (await store.list()).map(open),
    create: (record) => store.create(seal(record)),
    update: (record) => store.update(seal(record)),
    delete: (clientId) => store.delete(clientId),
    ping: () => store.ping(),
    close: () => store.close(),
    async sealAll() {
      let written = 0;
      for (const raw of await store.list()) {
        if (!stale(raw)) continue;
        const clear = open(raw);
        if (clear.config.webhooks?.some((w) => isSealed(w.secret))) continue; // its key is gone: left as it is
        // Only if nobody changed it since it was read (the next start tries again otherwise).
        const now = await store.get(raw.config.clientId);
        if (now === undefined || now.updatedAt !== raw.updatedAt) continue;
        if (await store.update(seal(clear))) written += 1;
      }
      return written;
    },
  };
}
