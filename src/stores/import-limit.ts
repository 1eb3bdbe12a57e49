// The application's limit of passkeys per user, applied by a store to a batch of an import inside the
// batch's transaction (CredentialStore.importBatch): the counts it is given are read under the same write
// lock (SQLite) or user locks (PostgreSQL) a registration takes, so a registration committed since the batch
// was read counts, and none can pass the limit beside the batch.
import type { CredentialRecord } from './types.js';

export interface LimitedBatch {
  /** The records to insert, in file order: those within the limit, and those whose id is stored already. */
  readonly within: CredentialRecord[];
  /** The ids of the records whose user would pass the limit. */
  readonly overLimit: string[];
}

/**
 * Splits a batch at the limit. `passkeys`: how many each user handle of the batch has stored; `stored`: the
 * batch's ids that are stored already, which the insert leaves as they are, so they neither count nor are
 * over the limit.
 */
export function withinLimit(
  records: readonly CredentialRecord[],
  max: number,
  passkeys: ReadonlyMap<string, number>,
  stored: ReadonlySet<string>,
): LimitedBatch {
  const counts = new Map(passkeys);
  const within: CredentialRecord[] = [];
  const overLimit: string[] = [];
  for (const record of records) {
    const count = counts.get(record.userHandle) ?? 0;
    if (stored.has(record.credentialId)) within.push(record);
    else if (count >= max) overLimit.push(record.credentialId);
    else {
      counts.set(record.userHandle, count + 1);
      within.push(record);
    }
  }
  return { within, overLimit };
}
