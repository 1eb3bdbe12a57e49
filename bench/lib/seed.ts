// Bulk seeding of credentials straight into the service's SQLite file: the schema comes from the service's
// own opener (migrations applied), then one transaction of one prepared INSERT. Seeded rows are realistic
// in size (32-byte ids and user handles, a 77-byte COSE key) but share one public key: nobody signs with them.

import { randomBytes } from 'node:crypto';
import { openSqliteDatabase } from '../../src/stores/sqlite/open.js';

export interface SeedResult {
  readonly rows: number;
  readonly seconds: number;
  readonly fileMiB: number;
}

export function seedCredentials(
  file: string,
  count: number,
  clientId: string,
  cose: Buffer,
  domain: string,
): SeedResult {
  const t0 = performance.now();
  const db = openSqliteDatabase(file);
  try {
    // Seeding is setup, not service: no journal and no fsync (the service reopens the file with its own
    // durable settings), and the indexes are built once at the end (a sort) instead of row by row (random
    // B-tree inserts). They are re-created from their own definitions, read back from the schema.
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const indexes = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'credentials' AND sql IS NOT NULL",
      )
      .all() as { name: string; sql: string }[];
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
    const insert =
      db.prepare(`INSERT INTO credentials (client_id, credential_id, user_handle, username, public_key, algorithm,
      sign_count, transports, aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible, backup_state,
      user_verified, resident_key, clone_warning, created_at, last_used_at, nickname, authenticator_name)
      VALUES (?, ?, ?, ?, ?, -7, 0, '["internal"]', '00000000-0000-0000-0000-000000000000', 'none', 'none', 0, 1, 1, 1, 1, 0, ?, NULL, NULL, NULL)`);
    const now = Date.now();
    const chunk = 65_536;
    db.transaction(() => {
      for (let start = 0; start < count; start += chunk) {
        const n = Math.min(chunk, count - start);
        const random = randomBytes(64 * n);
        for (let i = 0; i < n; i++) {
          const id = random.subarray(64 * i, 64 * i + 32).toString('base64url');
          const handle = random.subarray(64 * i + 32, 64 * i + 64).toString('base64url');
          insert.run(clientId, id, handle, `seed-${start + i}#${domain}`, cose, now);
        }
      }
    })();
    for (const index of indexes) db.exec(index.sql);
    db.pragma('journal_mode = WAL');
    const pages = db.pragma('page_count', { simple: true }) as number;
    const size = db.pragma('page_size', { simple: true }) as number;
    return { rows: count, seconds: (performance.now() - t0) / 1000, fileMiB: (pages * size) / 2 ** 20 };
  } finally {
    db.close();
  }
}
