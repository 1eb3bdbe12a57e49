// The user.displayName a registration's options carried, kept with the credential so that a result's
// signals.currentUserDetails repeats what the password manager was given (docs/api.md "Signals").
// NULL for credentials stored before: the answer then falls back to the user part, the options' default.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 6,
  name: 'credential display name',
  statements: (schema) => [`ALTER TABLE ${schema}.credentials ADD COLUMN display_name text`],
};
