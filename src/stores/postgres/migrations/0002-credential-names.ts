// Names of a credential: the one the user or an administrator gives it (admin API rename), and the
// authenticator's description from FIDO metadata at registration. NULL = none / unknown.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 2,
  name: 'credential nickname and authenticator name',
  statements: (schema) => [
    `ALTER TABLE ${schema}.credentials ADD COLUMN nickname text`,
    `ALTER TABLE ${schema}.credentials ADD COLUMN authenticator_name text`,
  ],
};
