// The service's stores on each backend a test runs its ceremonies against: memory; SQLite (a real file);
// PostgreSQL (a fresh schema, dropped after); SQLite credentials with Redis ceremonies (a fresh key prefix).
// Each `open` gives stores of its own; `close` closes them and drops what it made.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryChallengeStore } from '../../src/stores/memory/challenges.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { openStores } from '../../src/stores/open.js';
import type { ChallengeStore, CredentialStore } from '../../src/stores/types.js';
import { freshPrefix, freshSchema, POSTGRES_URL, REDIS_URL } from '../scale/support/backends.js';

export interface BackendStores {
  readonly credentials: CredentialStore;
  readonly challenges: ChallengeStore;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  open(clock: () => number): Promise<BackendStores>;
}

async function sqliteStores(clock: () => number, challenges: 'database' | 'redis'): Promise<BackendStores> {
  const dir = mkdtempSync(join(tmpdir(), 'passkey-backend-'));
  const prefix = challenges === 'redis' ? freshPrefix('backend') : undefined;
  const stores = await openStores(
    {
      database: { kind: 'sqlite', path: join(dir, 'passkeys.db') },
      challenges: prefix ? { kind: 'redis', url: `${REDIS_URL}?prefix=${prefix.prefix}` } : { kind: 'database' },
      sqliteWriter: 'inline',
    },
    { clock },
  );
  return {
    credentials: stores.credentials,
    challenges: stores.challenges,
    close: async () => {
      await stores.close();
      await prefix?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const BACKENDS: readonly Backend[] = [
  {
    name: 'memory',
    open: async (clock) => ({
      credentials: new MemoryCredentialStore(),
      challenges: new MemoryChallengeStore({ clock }),
      close: async () => undefined,
    }),
  },
  { name: 'sqlite', open: (clock) => sqliteStores(clock, 'database') },
  { name: 'sqlite + redis ceremonies', open: (clock) => sqliteStores(clock, 'redis') },
  {
    name: 'postgres',
    open: async (clock) => {
      const schema = await freshSchema('backend');
      const stores = await openStores(
        {
          database: { kind: 'postgres', url: `${POSTGRES_URL}?schema=${schema.schema}` },
          challenges: { kind: 'database' },
        },
        { clock },
      );
      return {
        credentials: stores.credentials,
        challenges: stores.challenges,
        close: async () => {
          await stores.close();
          await schema.drop();
        },
      };
    },
  },
];
