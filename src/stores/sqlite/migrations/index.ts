// Every SQLite migration, in order. A new migration is a new file here and one more line below.
import type { SqliteMigration } from './migration.js';
import { migration as m0001 } from './0001-initial.js';
import { migration as m0002 } from './0002-operations.js';
import { migration as m0003 } from './0003-local-credentials.js';
import { migration as m0004 } from './0004-display-name.js';
import { migration as m0005 } from './0005-aaguid-proven.js';
import { migration as m0006 } from './0006-webhooks.js';
import { migration as m0007 } from './0007-local-credentials-per-user.js';
import { migration as m0008 } from './0008-relay-secrets.js';
import { migration as m0009 } from './0009-imported-user-handles.js';

export type { SqliteMigration } from './migration.js';

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
];

/** The schema version this build expects. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;
