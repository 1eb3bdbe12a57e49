// The service's side of the SQLite writer thread (src/stores/sqlite-writer-thread.ts). The credential and
// audit stores send their hot-path writes here by name (src/stores/sqlite-writes.ts); the thread commits
// everything that queued up during its previous flush as one transaction, and each promise resolves only
// after that COMMIT returned (synchronous=FULL: on disk). Reads stay on the stores' own connections: WAL
// readers never wait for the writer, and a write answered here is visible to the next read.
//
// Why a thread: better-sqlite3 is synchronous, so an autocommit write blocks the whole event loop for its
// fsync (0.7-4 ms on the disks measured in BENCHMARKS.md), and every request queued behind it waits.

import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from './types.js';
import type { SqliteWriteName, SqliteWriteParams } from './sqlite-writes.js';

export interface WriterThreadData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** At most this many writes per transaction (a bound on how long one flush holds the write lock). */
  readonly maxGroup: number;
}

export type WriterRequest =
  | { readonly kind: 'write'; readonly id: number; readonly name: SqliteWriteName; readonly params: SqliteWriteParams }
  | { readonly kind: 'ping'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number };

export interface WriteFailure {
  readonly ok: false;
  readonly message: string;
  readonly code: string | null;
  /** The database cannot serve now (busy, disk full, I/O error…): StoreUnavailableError, HTTP 503. */
  readonly unavailable: boolean;
}

export type WriterReply = { readonly id: number } & ({
  readonly ok: true;
  readonly changes: number;
  /** The transaction that carried the write (0 for pings). */
  readonly group: number;
} | WriteFailure);

/** What the writer has committed so far: `writes / groups` is the average group size (flushes saved). */
export interface SqliteWriterStats {
  readonly writes: number;
  readonly groups: number;
}

export interface SqliteWriterOptions {
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

interface Waiting {
  readonly resolve: (changes: number) => void;
  readonly reject: (error: Error) => void;
}

const THREAD = new URL('./sqlite-writer-thread.js', import.meta.url);

export class SqliteWriter {
  readonly #data: WriterThreadData;
  readonly #startTimeoutMs: number;
  readonly #waiting = new Map<number, Waiting>();
  #worker: Worker | undefined;
  #nextId = 0;
  #closed = false;
  #writes = 0;
  #groups = 0;
  #lastGroup = 0;

  private constructor(data: WriterThreadData, startTimeoutMs: number) {
    this.#data = data;
    this.#startTimeoutMs = startTimeoutMs;
  }

  /** Starts the thread and resolves once it has opened (and migrated) the file; rejects if it cannot. */
  static async open(path: string, options: SqliteWriterOptions = {}): Promise<SqliteWriter> {
    const writer = new SqliteWriter(
      { path, busyTimeoutMs: options.busyTimeoutMs ?? 5000, maxGroup: Math.max(1, options.maxGroup ?? 512) },
      options.startTimeoutMs ?? 15_000,
    );
    await writer.#start();
    return writer;
  }

  /** Runs one named write; resolves to the number of rows it changed, after its transaction committed. */
  run(name: SqliteWriteName, params: SqliteWriteParams): Promise<number> {
    return this.#send((id) => ({ kind: 'write', id, name, params }));
  }

  stats(): SqliteWriterStats {
    return { writes: this.#writes, groups: this.#groups };
  }

  /** Resolves when the thread answers from its connection (readiness). */
  async ping(): Promise<void> {
    await this.#send((id) => ({ kind: 'ping', id }));
  }

  /** Commits what is queued, closes the thread's connection and ends the thread. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const worker = this.#worker;
    const closing = worker === undefined ? Promise.resolve(0) : this.#send((id) => ({ kind: 'close', id })).catch(() => 0);
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
      worker.postMessage(request(id));
    });
  }

  #start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const worker = this.#spawn(() => {
        if (this.#waiting.size === 0) worker.unref();
        resolve();
      }, reject);
      worker.ref(); // until it is open: nothing else may be keeping the process alive
      const timer = setTimeout(() => {
        reject(new StoreUnavailableError(`SQLite writer did not open ${this.#data.path} within ${this.#startTimeoutMs} ms`));
        void worker.terminate();
      }, this.#startTimeoutMs);
      timer.unref();
      worker.once('message', () => clearTimeout(timer));
      worker.once('exit', () => clearTimeout(timer));
    });
  }

  #count(group: number): void {
    this.#writes += 1;
    // Replies of one group arrive together and groups are numbered upwards (per thread: a new thread
    // starts again at 1, which counts as a new group too).
    if (group !== this.#lastGroup) this.#groups += 1;
    this.#lastGroup = group;
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
    worker.on('message', (reply: WriterReply) => {
      if (reply.id === -1) {
        ready?.();
        return;
      }
      const waiting = this.#waiting.get(reply.id);
      if (waiting === undefined) return;
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) worker.unref();
      if (reply.ok && reply.group > 0) this.#count(reply.group);
      if (reply.ok) waiting.resolve(reply.changes);
      else waiting.reject(reply.unavailable ? new StoreUnavailableError(`SQLite unavailable during write: ${reply.message}`) : new SqliteWriteError(reply.message, reply.code));
    });
    worker.on('error', (error) => {
      lastError = error;
    });
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
      const reason = lastError?.message ?? 'the writer thread stopped';
      const error = new StoreUnavailableError(`SQLite writer for ${this.#data.path} stopped: ${reason}`, { cause: lastError });
      failed?.(error);
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
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
