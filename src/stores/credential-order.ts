// The order of a user's credentials as `listByUser` answers on every backend: oldest first, ties by
// credential id (code-unit order). The memory store sorts by it; the SQLite store too, in JavaScript rather
// than with ORDER BY (docs/performance.md: SQLite 3.54 re-prepares that statement on every run).
import type { CredentialRecord } from './types.js';

export function byCreation(a: CredentialRecord, b: CredentialRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0;
}
