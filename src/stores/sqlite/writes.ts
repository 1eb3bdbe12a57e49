// The writes that go through the SQLite writer (src/stores/sqlite/writer.ts), by name: the statements a
// ceremony makes on its hot path. The stores name them; the writer (a thread, or inline) prepares them on
// its own connection. One table, so the SQL of a write stands in one place whichever path runs it.

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
   * The same insert, answering (RETURNING) how many credentials the user has with the new one, counted in
   * the insert's own statement; no row when it inserted nothing. Writes are serialised (one write lock), so
   * the count is the one a read right after the commit would see.
   */
  'credential.insert-counted': `INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES (${credentialPlaceholders})
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
