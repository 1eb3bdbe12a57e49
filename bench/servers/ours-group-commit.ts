// A measured PROPOSAL, not the service: our service composed exactly as `serve` composes it (same config,
// app, ceremonies, SQLite file and durable settings), except that the credential writes of one event-loop
// turn share ONE transaction, so one fsync covers every authentication and registration that arrived
// together ("group commit"). Each caller is answered only after that COMMIT returned, so "ok" still means
// durably stored. The bench runs it next to the real service to show what the change in
// src/stores/sqlite.ts would buy (BENCHMARKS.md "Findings"); the service itself does not use this file.
//
// With --writer-thread the writes go to a worker thread (sqlite-writer.ts) with its own connection, which
// commits them in groups while the event loop goes on serving: no request waits behind another's fsync.
//
// With --plain the credential store is the service's own, unchanged: the service without its operations
// hooks (metrics, audit, rate limits), a diagnostic of what those hooks cost.
//
//   node ours-group-commit.js --config <file> [--writer-thread | --plain]

import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { WriteReply, WriteRequest } from './sqlite-writer.js';
import { createApplicationDirectory } from '../../src/applications.js';
import { loadConfig } from '../../src/config/load.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/log.js';
import { loadSecrets } from '../../src/secrets.js';
import { MemoryChallengeStore } from '../../src/stores/memory.js';
import { openSqliteDatabase, SqliteCredentialStore } from '../../src/stores/sqlite.js';
import type { CredentialRecord, CredentialStore, CredentialUse } from '../../src/stores/types.js';
import { StoreUnavailableError } from '../../src/stores/types.js';
import { systemRuntime } from '../../src/util/runtime.js';

type Db = ReturnType<typeof openSqliteDatabase>;

interface Pending {
  readonly write: () => Promise<unknown>;
  readonly resolve: (value: any) => void;
  readonly reject: (error: unknown) => void;
}

/** Runs the writes queued during one event-loop turn in one IMMEDIATE transaction; answers after COMMIT. */
class GroupCommit {
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(private readonly db: Db) {}

  run<T>(write: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    let outcomes: PromiseSettledResult<unknown>[];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      // The store's statements run synchronously when called (better-sqlite3), inside this transaction.
      const started = batch.map((p) => p.write());
      this.db.exec('COMMIT');
      outcomes = await Promise.allSettled(started);
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      const failure = new StoreUnavailableError(`group commit failed: ${(error as Error).message}`, { cause: error });
      for (const p of batch) p.reject(failure);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.status === 'fulfilled') p.resolve(outcome.value);
      else p.reject(outcome.reason);
    });
  }
}

class GroupCommittedCredentials implements CredentialStore {
  readonly #store: SqliteCredentialStore;
  readonly #group: GroupCommit;

  constructor(private readonly db: Db) {
    this.#store = new SqliteCredentialStore(db);
    this.#group = new GroupCommit(db);
  }

  create(record: CredentialRecord) { return this.#group.run(() => this.#store.create(record)); }
  recordUse(clientId: string, credentialId: string, use: CredentialUse) { return this.#group.run(() => this.#store.recordUse(clientId, credentialId, use)); }
  find(clientId: string, credentialId: string) { return this.#store.find(clientId, credentialId); }
  listByUser(clientId: string, userHandle: string) { return this.#store.listByUser(clientId, userHandle); }
  async close() { this.db.close(); }
}

/** Reads on the service's own connection (WAL readers never wait for the writer); writes via the worker. */
class WriterThreadCredentials implements CredentialStore {
  readonly #store: SqliteCredentialStore;
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (value: any) => void; reject: (error: unknown) => void }>();
  #next = 0;

  constructor(private readonly db: Db, path: string) {
    this.#store = new SqliteCredentialStore(db);
    this.#worker = new Worker(fileURLToPath(new URL('./sqlite-writer.js', import.meta.url)), { workerData: { path } });
    this.#worker.on('message', (reply: WriteReply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (!waiting) return;
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(reply.unavailable ? new StoreUnavailableError(reply.error) : new Error(reply.error));
    });
  }

  #send<T>(request: WriteRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  create(record: CredentialRecord) { return this.#send<'created' | 'duplicate'>({ kind: 'create', record }); }
  recordUse(clientId: string, credentialId: string, use: CredentialUse) { return this.#send<boolean>({ kind: 'recordUse', clientId, credentialId, use }); }
  find(clientId: string, credentialId: string) { return this.#store.find(clientId, credentialId); }
  listByUser(clientId: string, userHandle: string) { return this.#store.listByUser(clientId, userHandle); }
  async close() {
    this.#worker.postMessage('close');
    await this.#worker.terminate();
    this.db.close();
  }
}

const { values } = parseArgs({ options: { config: { type: 'string' }, 'writer-thread': { type: 'boolean', default: false }, plain: { type: 'boolean', default: false } } });
const config = loadConfig({ file: values.config, env: process.env, cwd: process.cwd() });
if (config.database.kind !== 'sqlite') throw new Error('the group-commit proposal is for SQLite');
const runtime = systemRuntime;
const log = createLogger({ level: 'warn', sink: process.stderr, clock: runtime.now, base: { service: 'passkey-server' } });
const secrets = loadSecrets({ config, env: process.env, randomBytes: runtime.randomBytes, log });
const credentials: CredentialStore = values.plain
  ? new SqliteCredentialStore(openSqliteDatabase(config.database.path))
  : values['writer-thread']
  ? new WriterThreadCredentials(openSqliteDatabase(config.database.path), config.database.path)
  : new GroupCommittedCredentials(openSqliteDatabase(config.database.path));
const challenges = new MemoryChallengeStore({ clock: runtime.now });
const app = buildApp({ config, applications: createApplicationDirectory(config.applications), credentials, challenges, secrets, runtime, log });
const server = createServer(app.handler);
server.keepAliveTimeout = 5_000;
server.listen(config.listen.port, config.listen.host, () => process.stdout.write(`listening ${config.listen.port}\n`));
process.on('SIGTERM', () => server.close(() => { void credentials.close().then(() => challenges.close()).then(() => process.exit(0)); }));
