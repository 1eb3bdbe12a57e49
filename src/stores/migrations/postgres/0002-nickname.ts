// A name the user or an administrator gives a credential (admin API rename); NULL = none.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 2,
  name: 'credential nickname',
  statements: (schema) => [`ALTER TABLE ${schema}.credentials ADD COLUMN nickname text`],
};
