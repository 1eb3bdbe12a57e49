// The writes that go through the SQLite writer (src/stores/sqlite/writer.ts), by name: the statements a
// ceremony makes on its hot path. The stores name them; the writer (a thread, or inline) prepares them on
// its own connection. One table, so the SQL of a write stands in one place whichever path runs it.
// Below, how they are committed: in groups, on one connection (GroupCommit, the writer's on either side).

import type Database from 'better-sqlite3';

/** The columns of `credentials`, in the order of the migrations; shared by every credential statement. */
export const CREDENTIAL_COLUMNS = `client_id, credential_id, user_handle, username, public_key, algorithm, sign_count, transports,
  aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible, backup_state,
  user_verified, resident_key, clone_warning, created_at, last_used_at, nickname, authenticator_name, display_name,
  aaguid_proven, authenticator_status, authenticator_status_at`;

const credentialPlaceholders = CREDENTIAL_COLUMNS.split(',')
  .map((c) => `@${c.trim()}`)
  .join(', ');

export const SQLITE_WRITES = {
  /** A new credential; `changes` 0 means (client_id, credential_id) already existed. */
  'credential.insert': `INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES (${credentialPlaceholders})
    ON CONFLICT (client_id, credential_id) DO NOTHING`,
  /**
   * The same insert, only while the user has fewer than `@limit` credentials (the application's
   * maxPasskeysPerUser), answering (RETURNING) how many they have with the new one, counted in the insert's
   * own statement; no row when it inserted nothing (a duplicate, or the user at the limit). Writes are
   * serialised (one write lock, across processes too), so the count is the one a read right after the commit
   * would see, and two registrations of one user can never both pass the limit (docs/decisions.md).
   */
  'credential.insert-counted': `INSERT INTO credentials (${CREDENTIAL_COLUMNS}) SELECT ${credentialPlaceholders}
    WHERE (SELECT count(*) FROM credentials WHERE client_id = @client_id AND user_handle = @user_handle) < @limit
    ON CONFLICT (client_id, credential_id) DO NOTHING
    RETURNING (SELECT count(*) FROM credentials WHERE client_id = @client_id AND user_handle = @user_handle)`,
  /**
   * Compare-and-set in one statement: the counter moves only if nobody moved it, no status was marked and the
   * row was not deleted and made again, since it was read.
   */
  'credential.use': `UPDATE credentials
    SET sign_count = @signCount, backup_eligible = @backupEligible, backup_state = @backupState, user_verified = @userVerified,
        clone_warning = max(clone_warning, @cloneWarning), last_used_at = @usedAt
    WHERE client_id = @clientId AND credential_id = @credentialId AND sign_count = @expectedSignCount
      AND authenticator_status IS @expectedAuthenticatorStatus AND created_at = @expectedCreatedAt`,
  /** One webhook message into the outbox (src/webhooks/types.ts), with the change it reports. */
  'webhook.enqueue': `INSERT INTO webhook_outbox (id, client_id, webhook_id, type, body, created_at, next_attempt_at)
    VALUES (@id, @clientId, @webhookId, @type, @body, @createdAt, @createdAt) ON CONFLICT (id) DO NOTHING`,
  /** One audit event (the ops table; created by the audit store before its first append). */
  'audit.insert': `INSERT INTO ops_audit_events (id, at, client_id, action, actor, result, event)
    VALUES (@id, @at, @client_id, @action, @actor, @result, @event)`,
} as const;

export type SqliteWriteName = keyof typeof SQLITE_WRITES;

/**
 * What one write answers: the rows it changed, or, for a write with RETURNING, the number its first column
 * returned (0 when it returned no row: it changed nothing).
 */
export function runWrite(statement: Database.Statement, params: SqliteWriteParams): number {
  if (!statement.reader) return statement.run(params).changes;
  const value = statement.pluck().get(params);
  return value === undefined ? 0 : Number(value);
}

/** Named parameters of one write: what better-sqlite3 binds (Buffers arrive in the thread as Uint8Array). */
export type SqliteWriteParams = Readonly<Record<string, string | number | bigint | null | Uint8Array>>;

/**
 * Writes that go with a write: run in its transaction only when it changed a row (the webhook messages
 * reporting a credential's change), and undone with it.
 */
export type SqliteFollowUps = readonly { readonly name: SqliteWriteName; readonly params: SqliteWriteParams }[];

/** SQLite result codes that mean "the database cannot serve now" (503), as opposed to a bug (500). */
export const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOTADB|CORRUPT)/;

// --- Group commit on one SQLite connection ---
// the writes queued while the previous COMMIT (and its fsync) ran
// are committed together as ONE transaction, and each is answered only after that COMMIT returned, so an
// answer still means "on disk" (synchronous=FULL) while one flush covers every ceremony that arrived
// together. Used by both writers of src/stores/sqlite/writer.ts: on the writer thread, or inline on the
// service's event loop.
//
// Flushes start at least `spacingMs` apart (COMMIT_SPACING_MS): under load a write waits up to that long
// for the next flush, so one fsync carries the writes of a few milliseconds instead of those of one
// event-loop turn; a write that comes after a quiet spell is flushed in the same turn as before. Measured:
// with the answer floor spreading sign-ins over the loop's turns, groups of 9 writes became 17 and a
// sign-in needed 0.89-0.91 x the CPU (docs/performance.md).
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
