// The service's credential stores, each opened fresh for one test file: memory, a real SQLite file in a
// temporary directory, and PostgreSQL in a schema of its own. `close()` closes the store and removes its data.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { openPostgresCredentialStore } from '../../src/stores/postgres/open.js';
import { openSqliteCredentialStore } from '../../src/stores/sqlite/credentials.js';
import type { CredentialStore } from '../../src/stores/types.js';
import { freshSchema, POSTGRES_URL } from '../scale/support/backends.js';

export interface OpenedCredentialStore {
  readonly store: CredentialStore;
  close(): Promise<void>;
}

export interface CredentialStoreKind {
  readonly name: 'memory' | 'sqlite' | 'postgres';
  open(): Promise<OpenedCredentialStore>;
}

export const CREDENTIAL_STORES: readonly CredentialStoreKind[] = [
  {
    name: 'memory',
    open: async () => {
      const store = new MemoryCredentialStore();
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'sqlite',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'passkey-store-'));
      const store = await openSqliteCredentialStore(join(dir, 'credentials.db'));
      return {
        store,
        close: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const schema = await freshSchema('creds');
      const store = await openPostgresCredentialStore(POSTGRES_URL, { schema: schema.schema });
      return {
        store,
        close: async () => {
          await store.close();
          await schema.drop();
        },
      };
    },
  },
];
