// SQLite stores on better-sqlite3: the default credential store here, and the ceremonies of
// `challenges: "database"` when the database is SQLite (sqlite-challenges.ts, re-exported here).
// Durability: WAL journal with synchronous=FULL, so a statement returns only after its commit reached the
// disk ("ok" means stored, also after a power cut). Several processes may open one file: every change is
// one statement or one IMMEDIATE transaction, and the busy timeout makes a writer wait for another.
// better-sqlite3 is synchronous: each call runs to completion before any other JavaScript, so within one
// process nothing interleaves; across processes SQLite's locks make each statement atomic.
// The service sends a credential's `create` and `recordUse` to the SQLite writer (sqlite-writer.ts: a
// thread, or inline on one core), which commits the writes that arrive together in one transaction (one
// fsync for many ceremonies); without a writer (CLI, tests) they are autocommit statements on this connection.

import type Database from 'better-sqlite3';
import type { CredentialRecord, CredentialStore, CredentialUse } from '../types.js';
import type { AttestationType } from '../../webauthn/types.js';
import { CREDENTIAL_COLUMNS, SQLITE_WRITES } from './writes.js';
import { guarded, openSqliteDatabase, type SqliteOptions } from './open.js';
import type { SqliteWriter } from './writer.js';

type Db = Database.Database;

export {
  openSqliteChallengeStore,
  SqliteChallengeStore,
  type SqliteChallengeOptions,
} from './challenges.js';

// ---------------------------------------------------------------------------------------------------
// Credentials

interface CredentialRow {
  client_id: string;
  credential_id: string;
  user_handle: string;
  username: string;
  public_key: Buffer;
  algorithm: number;
  sign_count: number;
  transports: string;
  aaguid: string;
  attestation_format: string;
  attestation_type: string;
  attestation_trusted: number;
  backup_eligible: number;
  backup_state: number;
  user_verified: number;
  resident_key: number | null;
  clone_warning: number;
  created_at: number;
  last_used_at: number | null;
  nickname: string | null;
  authenticator_name: string | null;
  display_name: string | null;
  aaguid_proven: number;
}

const bit = (value: boolean): number => (value ? 1 : 0);

function toRow(record: CredentialRecord): CredentialRow {
  return {
    client_id: record.clientId,
    credential_id: record.credentialId,
    user_handle: record.userHandle,
    username: record.username,
    public_key: Buffer.from(record.publicKey),
    algorithm: record.algorithm,
    sign_count: record.signCount,
    transports: JSON.stringify(record.transports),
    aaguid: record.aaguid,
    attestation_format: record.attestationFormat,
    attestation_type: record.attestationType,
    attestation_trusted: bit(record.attestationTrusted),
    backup_eligible: bit(record.backupEligible),
    backup_state: bit(record.backupState),
    user_verified: bit(record.userVerified),
    resident_key: record.residentKey === null ? null : bit(record.residentKey),
    clone_warning: bit(record.cloneWarning),
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt,
    nickname: record.nickname ?? null,
    authenticator_name: record.authenticatorName ?? null,
    display_name: record.displayName ?? null,
    aaguid_proven: bit(record.aaguidProven === true),
  };
}

/** A row as the reads return it: values in CREDENTIAL_COLUMNS order (raw mode skips one object per row). */
type CredentialValues = [
  clientId: string,
  credentialId: string,
  userHandle: string,
  username: string,
  publicKey: Buffer,
  algorithm: number,
  signCount: number,
  transports: string,
  aaguid: string,
  attestationFormat: string,
  attestationType: string,
  attestationTrusted: number,
  backupEligible: number,
  backupState: number,
  userVerified: number,
  residentKey: number | null,
  cloneWarning: number,
  createdAt: number,
  lastUsedAt: number | null,
  nickname: string | null,
  authenticatorName: string | null,
  displayName: string | null,
  aaguidProven: number,
];

function fromRow(row: CredentialValues): CredentialRecord {
  const [
    clientId,
    credentialId,
    userHandle,
    username,
    publicKey,
    algorithm,
    signCount,
    transports,
    aaguid,
    attestationFormat,
    attestationType,
    attestationTrusted,
    backupEligible,
    backupState,
    userVerified,
    residentKey,
    cloneWarning,
    createdAt,
    lastUsedAt,
    nickname,
    authenticatorName,
    displayName,
    aaguidProven,
  ] = row;
  const record: { -readonly [K in keyof CredentialRecord]: CredentialRecord[K] } = {
    clientId,
    credentialId,
    userHandle,
    username,
    // A Uint8Array view of the fresh Buffer better-sqlite3 made for this row (no copy; nothing else holds it).
    publicKey: new Uint8Array(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength),
    algorithm,
    signCount,
    transports: JSON.parse(transports) as string[],
    aaguid,
    attestationFormat,
    attestationType: attestationType as AttestationType,
    attestationTrusted: attestationTrusted === 1,
    backupEligible: backupEligible === 1,
    backupState: backupState === 1,
    userVerified: userVerified === 1,
    residentKey: residentKey === null ? null : residentKey === 1,
    cloneWarning: cloneWarning === 1,
    createdAt,
    lastUsedAt,
  };
  // "absent or null = none", the shape every backend returns.
  if (nickname !== null) record.nickname = nickname;
  if (authenticatorName !== null) record.authenticatorName = authenticatorName;
  if (displayName !== null) record.displayName = displayName;
  if (aaguidProven === 1) record.aaguidProven = true;
  return record;
}

/** Admin listing pages are bounded whatever the caller asks (the same bound on every backend). */
const MAX_ADMIN_PAGE = 1000;

export interface SqliteCredentialStoreOptions {
  /**
   * Where `create` and `recordUse` commit: the SQLite writer (group commit, what the service uses), or,
   * without one, this connection (one autocommit statement each). Not closed by the store: its owner closes it.
   */
  readonly writer?: SqliteWriter;
}

export class SqliteCredentialStore implements CredentialStore {
  readonly #db: Db;
  readonly #writer: SqliteWriter | undefined;
  // Prepared once per connection, reused by every call.
  readonly #insert: Database.Statement;
  readonly #find: Database.Statement;
  readonly #listByUser: Database.Statement;
  readonly #recordUse: Database.Statement;
  readonly #listByApplication: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #rename: Database.Statement;
  readonly #deleteByApplication: Database.Statement;
  readonly #ping: Database.Statement;

  constructor(db: Db, options: SqliteCredentialStoreOptions = {}) {
    this.#db = db;
    this.#writer = options.writer;
    this.#insert = db.prepare(SQLITE_WRITES['credential.insert']);
    this.#find = db
      .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND credential_id = ?`)
      .raw();
    this.#listByUser = db
      .prepare(
        `SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE client_id = ? AND user_handle = ? ORDER BY created_at, credential_id`,
      )
      .raw();
    this.#recordUse = db.prepare(SQLITE_WRITES['credential.use']);
    this.#listByApplication = db
      .prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials
      WHERE client_id = @clientId AND (@after IS NULL OR credential_id > @after) ORDER BY credential_id LIMIT @limit`)
      .raw();
    this.#delete = db.prepare('DELETE FROM credentials WHERE client_id = ? AND credential_id = ?');
    this.#rename = db.prepare('UPDATE credentials SET nickname = ? WHERE client_id = ? AND credential_id = ?');
    this.#deleteByApplication = db.prepare('DELETE FROM credentials WHERE client_id = ?');
    this.#ping = db.prepare('SELECT 1');
  }

  async create(record: CredentialRecord): Promise<'created' | 'duplicate'> {
    // Either way the promise resolves after COMMIT, which synchronous=FULL made durable.
    const row = toRow(record);
    const changes = this.#writer
      ? await this.#writer.run('credential.insert', { ...row })
      : guarded('credential create', () => this.#insert.run(row)).changes;
    return changes === 1 ? 'created' : 'duplicate';
  }

  async find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    const row = guarded('credential find', () => this.#find.get(clientId, credentialId)) as
      | CredentialValues
      | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  async listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    const rows = guarded('credential list', () => this.#listByUser.all(clientId, userHandle)) as CredentialValues[];
    return rows.map(fromRow);
  }

  async recordUse(clientId: string, credentialId: string, use: CredentialUse): Promise<boolean> {
    const params = {
      clientId,
      credentialId,
      expectedSignCount: use.expectedSignCount,
      signCount: use.signCount,
      backupEligible: bit(use.backupEligible),
      backupState: bit(use.backupState),
      userVerified: bit(use.userVerified),
      cloneWarning: bit(use.cloneWarning),
      usedAt: use.usedAt,
    };
    const changes = this.#writer
      ? await this.#writer.run('credential.use', params)
      : guarded('credential use', () => this.#recordUse.run(params)).changes;
    return changes === 1;
  }

  async listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    const limit = Math.max(0, Math.min(MAX_ADMIN_PAGE, Math.floor(page.limit)));
    if (limit === 0) return [];
    const rows = guarded('credential admin list', () =>
      this.#listByApplication.all({ clientId, after: page.after ?? null, limit }),
    ) as CredentialValues[];
    return rows.map(fromRow);
  }

  async delete(clientId: string, credentialId: string): Promise<boolean> {
    return guarded('credential delete', () => this.#delete.run(clientId, credentialId)).changes === 1;
  }

  async rename(clientId: string, credentialId: string, nickname: string | null): Promise<boolean> {
    return guarded('credential rename', () => this.#rename.run(nickname, clientId, credentialId)).changes === 1;
  }

  async deleteByApplication(clientId: string): Promise<number> {
    return guarded('credential delete by application', () => this.#deleteByApplication.run(clientId)).changes;
  }

  async ping(): Promise<void> {
    guarded('ping', () => this.#ping.get());
    await this.#writer?.ping();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

export async function openSqliteCredentialStore(
  path: string,
  options: SqliteOptions & SqliteCredentialStoreOptions = {},
): Promise<SqliteCredentialStore> {
  return new SqliteCredentialStore(openSqliteDatabase(path, options), options);
}
