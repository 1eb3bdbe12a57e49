// The lock a user's registrations take in turn on PostgreSQL (docs/decisions.md "A user's passkey
// limit"): each counts the user's credentials and inserts only under the application's maxPasskeysPerUser,
// and an import's batch takes the locks of all its users before it counts them (imports.ts). Under READ
// COMMITTED two such transactions would each count without the other's uncommitted row; a
// transaction-scoped advisory lock on (Client ID, user handle) makes the second wait until the first
// committed, and its next statement then sees that row.
// The key hashes "<Client ID> <user handle>" (a Client ID holds no space). Two users whose keys hash alike
// only wait for each other, which is harmless.
import type { Queryable } from './webhooks.js';

/** Distinguishes these locks from the migrations' (migrate.ts), which hash another text. */
const SEED = 35;

/** Takes the lock of (clientId, userHandle) until the transaction of `db` ends. */
export async function lockUser(db: Queryable, clientId: string, userHandle: string): Promise<void> {
  await lockUsers(db, clientId, [userHandle]);
}

/** Takes the locks of several users at once, in one order whoever asks, so that two batches never deadlock. */
export async function lockUsers(db: Queryable, clientId: string, userHandles: readonly string[]): Promise<void> {
  const sorted = [...new Set(userHandles)].sort();
  if (sorted.length === 0) return;
  await db.query(
    `SELECT pg_advisory_xact_lock(k) FROM (
       SELECT DISTINCT hashtextextended($1 || ' ' || h, ${SEED}) AS k FROM unnest($2::text[]) AS h ORDER BY k
     ) AS keys`,
    [clientId, sorted],
  );
}
