// The application store as the service reads it: each record with the schema's default of every key it lacks
// (config/application.ts `withSchemaDefaults`), so that an application the admin API stored before a key with
// a default existed (`maxPasskeysPerUser`) gets that default wherever it is read: the ceremonies, the admin
// API's views, the seeding's comparison. The default is written in the schema alone (src/schemas/).
import type { ApplicationConfig } from '../service-config.js';
import { withSchemaDefaults } from '../config/application.js';
import type { ApplicationRecord, ApplicationStore } from '../stores/types.js';

function completed(record: ApplicationRecord): ApplicationRecord {
  const config: ApplicationConfig = withSchemaDefaults(record.config);
  return config === record.config ? record : { ...record, config };
}

export function storeWithDefaults(store: ApplicationStore): ApplicationStore {
  return {
    get: async (clientId) => {
      const record = await store.get(clientId);
      return record === undefined ? undefined : completed(record);
    },
    list: async () => (await store.list()).map(completed),
    create: (record) => store.create(record),
    update: (record) => store.update(record),
    delete: (clientId) => store.delete(clientId),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
