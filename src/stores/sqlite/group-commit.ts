// Group commit on one SQLite connection: the writes queued while the previous COMMIT (and its fsync) ran
// are committed together as ONE transaction, and each is answered only after that COMMIT returned, so an
// answer still means "on disk" (synchronous=FULL) while one flush covers every ceremony that arrived
// together. Used by both writers of src/stores/sqlite-writer.ts: on the writer thread, or inline on the
// service's event loop.
//
// Flushes start at least `spacingMs` apart (COMMIT_SPACING_MS): under load a write waits up to that long
// for the next flush, so one fsync carries the writes of a few milliseconds instead of those of one
// event-loop turn; a write that comes after a quiet spell is flushed in the same turn as before. Measured:
// with the answer floor spreading sign-ins over the loop's turns, groups of 9 writes became 17 and a
// sign-in needed 0.89-0.91 x the CPU (docs/performance.md).

import type Database from 'better-sqlite3';
import {
  SQLITE_UNAVAILABLE,
  SQLITE_WRITES,
  type SqliteFollowUps,
  type SqliteWriteName,
  type SqliteWriteParams,
  runWrite,
} from './writes.js';

export interface WriteFailure {
  readonly ok: false;
  readonly message: string;
  readonly code: string | null;
  /** The database cannot serve now (busy, disk full, I/O error…): StoreUnavailableError, HTTP 503. */
  readonly unavailable: boolean;
}

/** The transaction number lets the caller count how many writes each flush carried. */
export type WriteOutcome = { readonly ok: true; readonly changes: number; readonly group: number } | WriteFailure;

/** The least time between the starts of two flushes (docs/storage.md, "Group commit"). */
export const COMMIT_SPACING_MS = 2;

export interface GroupCommitOptions {
  /** At most this many writes per transaction (a bound on how long one flush holds the write lock). */
  readonly maxGroup: number;
  /** Default COMMIT_SPACING_MS; 0 flushes every turn that queued a write. */
  readonly spacingMs?: number;
  /** A monotonic clock in milliseconds (default performance.now). */
  readonly now?: () => number;
}

interface Queued {
  readonly name: SqliteWriteName;
  readonly params: SqliteWriteParams;
  readonly done: (outcome: WriteOutcome) => void;
  readonly then?: SqliteFollowUps | undefined;
}

export class GroupCommit {
  readonly #db: Database.Database;
  readonly #maxGroup: number;
  // Prepared on first use: the audit table may be created after this connection opened.
  readonly #prepared = new Map<SqliteWriteName, Database.Statement>();
  readonly #spacingMs: number;
  readonly #now: () => number;
  #queue: Queued[] = [];
  #scheduled = false;
  /** The timer of a flush that waits for the spacing, so that flushAll can cancel it. */
  #spaced: NodeJS.Timeout | undefined;
  #group = 0;
  #lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(db: Database.Database, options: GroupCommitOptions) {
    this.#db = db;
    this.#maxGroup = Math.max(1, options.maxGroup);
    this.#spacingMs = Math.max(0, options.spacingMs ?? COMMIT_SPACING_MS);
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Queues a write for the next flush, which runs after everything already delivered this turn is queued,
   * and no sooner than the spacing after the previous flush started.
   */
  push(
    name: SqliteWriteName,
    params: SqliteWriteParams,
    done: (outcome: WriteOutcome) => void,
    then?: SqliteFollowUps,
  ): void {
    this.#queue.push({ name, params, done, then });
    if (this.#scheduled) return;
    this.#scheduled = true;
    const wait = this.#lastFlushAt + this.#spacingMs - this.#now();
    if (wait <= 0) setImmediate(() => this.#flush());
    else this.#spaced = setTimeout(() => this.#flush(), Math.ceil(wait));
  }

  /** Commits everything queued now (before closing the connection). */
  flushAll(): void {
    clearTimeout(this.#spaced);
    while (this.#queue.length > 0) this.#flush();
  }

  /** Runs one group: a single write commits on its own; several share one IMMEDIATE transaction. */
  #flush(): void {
    this.#scheduled = false;
    this.#spaced = undefined;
    if (this.#queue.length === 0 || !this.#db.open) return;
    this.#lastFlushAt = this.#now();
    const writes = this.#queue.slice(0, this.#maxGroup);
    this.#queue = this.#queue.slice(writes.length);
    if (this.#queue.length > 0 && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    const group = ++this.#group;
    if (writes.length === 1) {
      const only = writes[0]!;
      only.done(this.#attempt(only, group));
      return;
    }
    const outcomes: WriteOutcome[] = [];
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      for (const write of writes) {
        const outcome = this.#attempt(write, group);
        // A failed statement undoes only itself, unless SQLite rolled the whole transaction back (disk full,
        // I/O error): then nothing of the group is stored and every write of it has failed.
        if (!outcome.ok && !this.#db.inTransaction) throw new GroupFailed(outcome);
        outcomes.push(outcome);
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      const failed = error instanceof GroupFailed ? error.outcome : failure(error);
      for (const write of writes) write.done({ ...failed, unavailable: true });
      return;
    }
    for (const [i, write] of writes.entries()) write.done(outcomes[i]!);
  }

  #attempt(write: Queued, group: number): WriteOutcome {
    try {
      const then = write.then;
      if (then === undefined || then.length === 0)
        return { ok: true, changes: runWrite(this.#statement(write.name), write.params), group };
      // Its own transaction, or a savepoint inside the group's: the follow-ups stand or fall with the write.
      const changes = this.#db.transaction(() => {
        const made = runWrite(this.#statement(write.name), write.params);
        if (made > 0) for (const next of then) this.#statement(next.name).run(next.params);
        return made;
      })();
      return { ok: true, changes, group };
    } catch (error) {
      return failure(error);
    }
  }

  #statement(name: SqliteWriteName): Database.Statement {
    let found = this.#prepared.get(name);
    if (found === undefined) {
      found = this.#db.prepare(SQLITE_WRITES[name]);
      this.#prepared.set(name, found);
    }
    return found;
  }
}

class GroupFailed extends Error {
  constructor(readonly outcome: WriteFailure) {
    super(outcome.message);
  }
}

export function failure(error: unknown): WriteFailure {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    message,
    code: typeof code === 'string' ? code : null,
    unavailable: typeof code === 'string' && SQLITE_UNAVAILABLE.test(code),
  };
}
