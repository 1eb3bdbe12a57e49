// The user.displayName a registration's options carried, kept with the credential so that a result's
// signals.currentUserDetails repeats what the password manager was given (docs/api.md "Signals").
// NULL for credentials stored before: the answer then falls back to the user part, the options' default.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 4,
  name: 'credential display name',
  statements: ['ALTER TABLE credentials ADD COLUMN display_name TEXT'],
};
