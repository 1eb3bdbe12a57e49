// Long: the SQLite writer whole, its interface and both ways to run it (thread, inline), one contract to read at once.
// The SQLite writer: the credential and audit stores send their hot-path writes here by name
// (src/stores/sqlite/writes.ts), and it group-commits them (GroupCommit, writes.ts): everything
// that queued up during the previous flush is one transaction, and each promise resolves only after that
// COMMIT returned (synchronous=FULL: on disk). Reads stay on the stores' own connections: WAL readers never
// wait for the writer, and a write answered here is visible to the next read.
//
// Two ways to run it, the same semantics:
// - `thread`: a worker thread with its own connection (src/stores/sqlite/writer-thread.ts). The event loop
//   never waits for a flush, at the price of a second JavaScript heap (about 10-15 MiB of RSS).
// - `inline`: the same group commit on the event loop, on a connection of its own: one flush per group
//   blocks the process (better-sqlite3 is synchronous), but no second heap.
// `auto` (the default, resolveWriterMode) picks between them by the cores the process may use; docs/storage.md
// says why, with both measured side by side.
// Its interface, options and error are below; the messages to and from the thread are writer-thread.ts's.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { openSqliteDatabase } from './open.js';
import { StoreUnavailableError } from '../../errors/catalogue.js';
import type { WriterMessage, WriterReply, WriterRequest, WriterThreadData } from './writer-thread.js';
import {
  GroupCommit,
  type SqliteFollowUps,
  type SqliteWriteName,
  type SqliteWriteParams,
  type WriteOutcome,
} from './writes.js';

export type { WriteFailure } from './writes.js';

/** What the writer has committed so far: `writes / groups` is the average group size (flushes saved). */
export interface SqliteWriterStats {
  readonly writes: number;
  readonly groups: number;
}

export type SqliteWriterMode = 'thread' | 'inline';

export interface SqliteWriterOptions {
  /** Default `thread`. */
  readonly mode?: SqliteWriterMode;
  readonly busyTimeoutMs?: number;
  readonly maxGroup?: number;
  /** How long opening (and closing) may take before it counts as failed. Default 15 s. */
  readonly startTimeoutMs?: number;
}

/** An error of one write that is not an outage: kept with SQLite's code (a bug or a constraint: HTTP 500). */
export class SqliteWriteError extends Error {
  readonly code: string | null;
  constructor(message: string, code: string | null) {
    super(message);
    this.name = 'SqliteWriteError';
    this.code = code;
  }
}

export interface SqliteWriter {
  /** Where the group commit runs. */
  readonly mode: SqliteWriterMode;
  /**
   * Runs one named write (and, when it changed a row, its follow-ups in the same transaction); resolves to
   * the number of rows it changed (a write with RETURNING: the number it returned, writes.ts `runWrite`),
   * after its transaction committed.
   */
  run(name: SqliteWriteName, params: SqliteWriteParams, then?: SqliteFollowUps): Promise<number>;
  /** Resolves when the writer's connection answers (readiness). */
  ping(): Promise<void>;
  /** Commits what is queued, then closes. Idempotent; later writes fail with StoreUnavailableError. */
  close(): Promise<void>;
  stats(): SqliteWriterStats;
}

/**
 * What `sqliteWriter: "auto"` (and absent, the schema's default) runs: the thread only when the process may use a second core.
 * Confined to one core (taskset, a cpuset), the thread cannot run beside the event loop: every group then
 * costs two context switches and waits for the scheduler, which docs/storage.md gives as about twice the
 * CPU per write of `inline` and a higher p99. `cores` is os.availableParallelism() (it follows the CPU
 * affinity mask, not a cgroup CPU quota).
 */
export function resolveWriterMode(
  setting: SqliteWriterMode | 'auto' | undefined,
  cores: number = availableParallelism(),
): SqliteWriterMode {
  if (setting === 'thread' || setting === 'inline') return setting;
  return cores >= 2 ? 'thread' : 'inline';
}

/** Opens the writer for the database file at `path` (creating and migrating it like any store). */
export async function openSqliteWriter(path: string, options: SqliteWriterOptions = {}): Promise<SqliteWriter> {
  const data: WriterThreadData = {
    path,
    busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    maxGroup: Math.max(1, options.maxGroup ?? 512),
  };
  if (options.mode === 'inline') return new InlineWriter(data);
  return ThreadWriter.open(data, options.startTimeoutMs ?? 15_000);
}

/** Counts writes and the transactions that carried them (replies of one group arrive together, numbered upwards). */
class GroupCounter {
  #writes = 0;
  #groups = 0;
  #lastGroup = 0;

  count(outcome: WriteOutcome): void {
    if (!outcome.ok || outcome.group === 0) return;
    this.#writes += 1;
    if (outcome.group !== this.#lastGroup) this.#groups += 1;
    this.#lastGroup = outcome.group;
  }

  stats(): SqliteWriterStats {
    return { writes: this.#writes, groups: this.#groups };
  }
}

function settle(outcome: WriteOutcome, resolve: (changes: number) => void, reject: (error: Error) => void): void {
  if (outcome.ok) resolve(outcome.changes);
  else
    reject(
      outcome.unavailable
        ? new StoreUnavailableError(`SQLite unavailable during write: ${outcome.message}`)
        : new SqliteWriteError(outcome.message, outcome.code),
    );
}

/** Group commit on the event loop, on a connection of its own. */
class InlineWriter implements SqliteWriter {
  readonly mode = 'inline';
  readonly #db: ReturnType<typeof openSqliteDatabase>;
  readonly #commits: GroupCommit;
  readonly #counter = new GroupCounter();
  #closed = false;

  constructor(data: WriterThreadData) {
    this.#db = openSqliteDatabase(data.path, { busyTimeoutMs: data.busyTimeoutMs });
    this.#commits = new GroupCommit(this.#db, { maxGroup: data.maxGroup });
  }

  run(name: SqliteWriteName, params: SqliteWriteParams, then?: SqliteFollowUps): Promise<number> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError('SQLite writer is closed'));
    return new Promise<number>((resolve, reject) => {
      this.#commits.push(
        name,
        params,
        (outcome) => {
          this.#counter.count(outcome);
          settle(outcome, resolve, reject);
        },
        then,
      );
    });
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new StoreUnavailableError('SQLite writer is closed');
    try {
      this.#db.prepare('SELECT 1').get();
    } catch (error) {
      throw new StoreUnavailableError(`SQLite unavailable during ping: ${(error as Error).message}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#commits.flushAll();
    this.#db.close();
  }

  stats(): SqliteWriterStats {
    return this.#counter.stats();
  }
}

interface Waiting {
  readonly resolve: (changes: number) => void;
  readonly reject: (error: Error) => void;
}

const THREAD = new URL('./writer-thread.js', import.meta.url);

/** Group commit on a worker thread with its own connection; the event loop never waits for a flush. */
class ThreadWriter implements SqliteWriter {
  readonly mode = 'thread';
  readonly #data: WriterThreadData;
  readonly #startTimeoutMs: number;
  readonly #waiting = new Map<number, Waiting>();
  readonly #counter = new GroupCounter();
  #worker: Worker | undefined;
  #nextId = 0;
  #closed = false;
  /** Requests of this turn, posted together in the check phase (after every request of the poll phase). */
  #outbox: WriterRequest[] = [];

  private constructor(data: WriterThreadData, startTimeoutMs: number) {
    this.#data = data;
    this.#startTimeoutMs = startTimeoutMs;
  }

  /** Starts the thread and resolves once it has opened (and migrated) the file; rejects if it cannot. */
  static async open(data: WriterThreadData, startTimeoutMs: number): Promise<ThreadWriter> {
    const writer = new ThreadWriter(data, startTimeoutMs);
    await writer.#start();
    return writer;
  }

  run(name: SqliteWriteName, params: SqliteWriteParams, then?: SqliteFollowUps): Promise<number> {
    return this.#send((id) => ({ kind: 'write', id, name, params, ...(then && then.length > 0 ? { then } : {}) }));
  }

  stats(): SqliteWriterStats {
    return this.#counter.stats();
  }

  async ping(): Promise<void> {
    await this.#send((id) => ({ kind: 'ping', id }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    const worker = this.#worker;
    const closing =
      worker === undefined ? Promise.resolve(0) : this.#send((id) => ({ kind: 'close', id })).catch(() => 0);
    this.#closed = true;
    if (worker === undefined) return;
    await withTimeout(closing, this.#startTimeoutMs).catch(() => undefined);
    await worker.terminate();
  }

  #send(request: (id: number) => WriterRequest): Promise<number> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError('SQLite writer is closed'));
    const worker = this.#worker ?? this.#spawn();
    const id = this.#nextId++;
    return new Promise<number>((resolve, reject) => {
      // Referenced only while something waits for it: an idle writer never keeps the process alive.
      if (this.#waiting.size === 0) worker.ref();
      this.#waiting.set(id, { resolve, reject });
      this.#outbox.push(request(id));
      if (this.#outbox.length === 1) setImmediate(() => this.#post());
    });
  }

  #post(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    // Without a thread, the one these were meant for died and its exit handler has failed them already.
    if (batch.length > 0) this.#worker?.postMessage(batch satisfies WriterMessage);
  }

  #start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const worker = this.#spawn(() => {
        if (this.#waiting.size === 0) worker.unref();
        resolve();
      }, reject);
      worker.ref(); // until it is open: nothing else may be keeping the process alive
      const timer = setTimeout(() => {
        reject(
          new StoreUnavailableError(`SQLite writer did not open ${this.#data.path} within ${this.#startTimeoutMs} ms`),
        );
        void worker.terminate();
      }, this.#startTimeoutMs);
      timer.unref();
      worker.once('message', () => clearTimeout(timer));
      worker.once('exit', () => clearTimeout(timer));
    });
  }

  /** A new thread; a thread that dies fails what it held, and the next write starts another. */
  #spawn(ready?: () => void, failed?: (error: Error) => void): Worker {
    const worker = new Worker(THREAD, {
      workerData: this.#data,
      // The thread only binds parameters and runs statements: a small heap is plenty.
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 },
    });
    worker.unref();
    this.#worker = worker;
    let lastError: Error | undefined;
    worker.on('message', (replies: readonly WriterReply[]) => {
      for (const reply of replies) {
        if (reply.id === -1) {
          ready?.();
          continue;
        }
        const waiting = this.#waiting.get(reply.id);
        if (waiting === undefined) continue;
        this.#waiting.delete(reply.id);
        this.#counter.count(reply);
        settle(reply, waiting.resolve, waiting.reject);
      }
      if (this.#waiting.size === 0) worker.unref();
    });
    worker.on('error', (error) => {
      lastError = error;
    });
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = lastError?.message ?? 'the writer thread stopped';
      const error = new StoreUnavailableError(`SQLite writer for ${this.#data.path} stopped: ${reason}`, {
        cause: lastError,
      });
      failed?.(error);
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
      this.#outbox = [];
    });
    return worker;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
