// The orders credentials are listed in on every backend. A user's (`listByUser`): oldest first, ties by
// credential id (code-unit order); the memory and SQLite stores sort by byCreation in JavaScript rather than
// with ORDER BY (docs/performance.md: SQLite 3.54 re-prepares that statement on every run). An
// application's pages (`listByApplication`): by credential id, from BEFORE_EVERY_ID.
import type { CredentialRecord } from './types.js';

export function byCreation(a: CredentialRecord, b: CredentialRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0;
}

/**
 * Where a page of an application's credentials in credential id order starts when no `after` is given:
 * below every id (ids are never empty). One `credential_id > ?` for every page keeps the query a range seek
 * on the (client_id, credential_id) index; `(? IS NULL OR credential_id > ?)` made SQLite read the index from
 * the application's first id on every page, so an export of a million passkeys slowed page by page.
 */
export const BEFORE_EVERY_ID = '';
