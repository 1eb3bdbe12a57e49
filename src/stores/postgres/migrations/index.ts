// Every PostgreSQL migration, in order. A new migration is a new file here and one more line below.
import type { PostgresMigration } from './migration.js';
import { migration as m0001 } from './0001-initial.js';
import { migration as m0002 } from './0002-credential-names.js';
import { migration as m0003 } from './0003-deployment-facts.js';
import { migration as m0004 } from './0004-operations.js';
import { migration as m0005 } from './0005-local-credentials.js';
import { migration as m0006 } from './0006-display-name.js';
import { migration as m0007 } from './0007-aaguid-proven.js';
import { migration as m0008 } from './0008-webhooks.js';
import { migration as m0009 } from './0009-local-credentials-per-user.js';
import { migration as m0010 } from './0010-relay-secrets.js';
import { migration as m0011 } from './0011-imported-user-handles.js';

export type { PostgresMigration } from './migration.js';

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
];

/** The schema version this build expects. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;
