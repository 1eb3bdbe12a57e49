// CredentialStore on PostgreSQL. Each operation is one statement, so each is atomic on its own:
// create relies on the primary key (ON CONFLICT DO NOTHING → duplicate), recordUse is a single
// conditional UPDATE (compare-and-set on sign_count), so concurrent instances never move a counter back.

import type pg from 'pg';
import type { CredentialRecord, CredentialStore, CredentialUse } from '../types.js';
import type { AttestationType } from '../../webauthn/types.js';
import { guarded, toNumber } from './connection.js';

const COLUMNS = `client_id, credential_id, user_handle, username, public_key, algorithm, sign_count, transports,
  aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible, backup_state,
  user_verified, resident_key, clone_warning, created_at, last_used_at, nickname, authenticator_name, display_name,
  aaguid_proven`;

interface CredentialRow {
  client_id: string;
  credential_id: string;
  user_handle: string;
  username: string;
  public_key: Buffer;
  algorithm: number;
  sign_count: string | number;
  transports: string[];
  aaguid: string;
  attestation_format: string;
  attestation_type: string;
  attestation_trusted: boolean;
  backup_eligible: boolean;
  backup_state: boolean;
  user_verified: boolean;
  resident_key: boolean | null;
  clone_warning: boolean;
  created_at: string | number;
  last_used_at: string | number | null;
  nickname: string | null;
  authenticator_name: string | null;
  aaguid_proven: boolean;
  display_name: string | null;
}

function fromRow(row: CredentialRow): CredentialRecord {
  const record: CredentialRecord = {
    clientId: row.client_id,
    credentialId: row.credential_id,
    userHandle: row.user_handle,
    username: row.username,
    publicKey: Uint8Array.from(row.public_key),
    algorithm: row.algorithm,
    signCount: toNumber(row.sign_count),
    transports: [...row.transports],
    aaguid: row.aaguid,
    attestationFormat: row.attestation_format,
    attestationType: row.attestation_type as AttestationType,
    attestationTrusted: row.attestation_trusted,
    backupEligible: row.backup_eligible,
    backupState: row.backup_state,
    userVerified: row.user_verified,
    residentKey: row.resident_key,
    cloneWarning: row.clone_warning,
    createdAt: toNumber(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toNumber(row.last_used_at),
  };
  // "absent or null = none": absent keeps a record created without these fields equal to what comes back.
  return {
    ...record,
    ...(row.nickname === null ? {} : { nickname: row.nickname }),
    ...(row.authenticator_name === null ? {} : { authenticatorName: row.authenticator_name }),
    ...(row.display_name == null ? {} : { displayName: row.display_name }),
    ...(row.aaguid_proven ? { aaguidProven: true } : {}),
  };
}

/** Page sizes of the admin listing are bounded whatever the caller asks. */
const MAX_PAGE = 1000;

export class PostgresCredentialStore implements CredentialStore {
  readonly #pool: pg.Pool;
  #closed = false;
  readonly #sql: {
    readonly insert: string;
    readonly find: string;
    readonly listByUser: string;
    readonly recordUse: string;
    readonly listByApplication: string;
    readonly delete: string;
    readonly rename: string;
    readonly deleteByApplication: string;
  };

  /** `schema` is the quoted identifier; the schema must already be migrated (see postgres-migrate.ts). */
  constructor(pool: pg.Pool, schema: string) {
    this.#pool = pool;
    const table = `${schema}.credentials`;
    this.#sql = {
      insert: `INSERT INTO ${table} (${COLUMNS})
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
               ON CONFLICT (client_id, credential_id) DO NOTHING`,
      find: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND credential_id = $2`,
      // Same order as every backend: oldest first, ties by credential id in code-unit order (the column is COLLATE "C").
      listByUser: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND user_handle = $2
                   ORDER BY created_at, credential_id`,
      recordUse: `UPDATE ${table}
                  SET sign_count = $4, backup_state = $5, user_verified = $6,
                      clone_warning = clone_warning OR $7, last_used_at = $8, backup_eligible = $9
                  WHERE client_id = $1 AND credential_id = $2 AND sign_count = $3`,
      // Keyset pagination on the primary key: stable under concurrent inserts, no OFFSET scans.
      listByApplication: `SELECT ${COLUMNS} FROM ${table} WHERE client_id = $1 AND ($2::text IS NULL OR credential_id > $2)
                          ORDER BY credential_id LIMIT $3`,
      delete: `DELETE FROM ${table} WHERE client_id = $1 AND credential_id = $2`,
      rename: `UPDATE ${table} SET nickname = $3 WHERE client_id = $1 AND credential_id = $2`,
      deleteByApplication: `DELETE FROM ${table} WHERE client_id = $1`,
    };
  }

  async create(record: CredentialRecord): Promise<'created' | 'duplicate'> {
    const result = await guarded('credential create', () =>
      this.#pool.query(this.#sql.insert, [
        record.clientId,
        record.credentialId,
        record.userHandle,
        record.username,
        Buffer.from(record.publicKey),
        record.algorithm,
        record.signCount,
        [...record.transports],
        record.aaguid,
        record.attestationFormat,
        record.attestationType,
        record.attestationTrusted,
        record.backupEligible,
        record.backupState,
        record.userVerified,
        record.residentKey,
        record.cloneWarning,
        record.createdAt,
        record.lastUsedAt,
        record.nickname ?? null,
        record.authenticatorName ?? null,
        record.displayName ?? null,
        record.aaguidProven === true,
      ]),
    );
    // The statement returned only after COMMIT (autocommit): with synchronous_commit on, the row is durable.
    return result.rowCount === 1 ? 'created' : 'duplicate';
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const result = await guarded('credential find', () =>
      this.#pool.query<CredentialRow>(this.#sql.find, [clientId, credentialId]),
    );
    const row = result.rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    const result = await guarded('credential list', () =>
      this.#pool.query<CredentialRow>(this.#sql.listByUser, [clientId, userHandle]),
    );
    return result.rows.map(fromRow);
  }

  async recordUse(clientId: string, credentialId: string, use: CredentialUse): Promise<boolean> {
    const result = await guarded('credential use', () =>
      this.#pool.query(this.#sql.recordUse, [
        clientId,
        credentialId,
        use.expectedSignCount,
        use.signCount,
        use.backupState,
        use.userVerified,
        use.cloneWarning,
        use.usedAt,
        use.backupEligible,
      ]),
    );
    return result.rowCount === 1;
  }

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const result = await guarded('credential admin list', () =>
      this.#pool.query<CredentialRow>(this.#sql.listByApplication, [clientId, page.after ?? null, limit]),
    );
    return result.rows.map(fromRow);
  }

  async delete(clientId: string, credentialId: string): Promise<boolean> {
    const result = await guarded('credential delete', () =>
      this.#pool.query(this.#sql.delete, [clientId, credentialId]),
    );
    return result.rowCount === 1;
  }

  async rename(clientId: string, credentialId: string, nickname: string | null): Promise<boolean> {
    const result = await guarded('credential rename', () =>
      this.#pool.query(this.#sql.rename, [clientId, credentialId, nickname]),
    );
    return result.rowCount === 1;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    const result = await guarded('credential delete by application', () =>
      this.#pool.query(this.#sql.deleteByApplication, [clientId]),
    );
    return result.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await guarded('ping', () => this.#pool.query('SELECT 1'));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
