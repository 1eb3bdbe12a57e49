// What the SQLite writer (sqlite-writer.ts) is to the stores that call it and to its thread: the SqliteWriter
// interface, its options and modes, the error of one write, and the messages between the process and the
// writer thread (sqlite-writer-thread.ts). It imports no implementation, so both sides can name it.
import type { SqliteFollowUps, SqliteWriteName, SqliteWriteParams } from './writes.js';
import type { WriteOutcome } from './group-commit.js';

export interface WriterThreadData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** At most this many writes per transaction (a bound on how long one flush holds the write lock). */
  readonly maxGroup: number;
}

export type WriterRequest =
  | {
      readonly kind: 'write';
      readonly id: number;
      readonly name: SqliteWriteName;
      readonly params: SqliteWriteParams;
      readonly then?: SqliteFollowUps;
    }
  | { readonly kind: 'ping'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number };

/**
 * What crosses between the threads: requests and replies travel in arrays, one message per event-loop turn
 * (per group on the way back), because each postMessage costs far more than cloning one more small object.
 */
export type WriterMessage = readonly WriterRequest[];

/** The transaction that carried a write is `group` (0 for pings and the thread's ready message). */
export type WriterReply = { readonly id: number } & WriteOutcome;

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
