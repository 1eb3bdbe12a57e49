// The import (docs/migration.md): any reader's items in, the report out. Each record is checked on its own
// (checks.ts), then, a batch at a time, decided against one read of the store (decide.ts) and written in one
// transaction (CredentialStore.importBatch): after a kill -9 whole batches are stored, and the same command
// again skips them and completes the rest. A dry run decides the same way and writes nothing. Memory stays
// bounded: one batch, the file memory (file-memory.ts) and at most MAX_LISTED_REFUSALS refusals.
import type { CredentialRecord, CredentialStore } from '../stores/types.js';
import { checkRecord, type ImportApplication } from './checks.js';
import { decideBatch, lookupQuery } from './decide.js';
import { DRY_RUN_MEMORY, FileMemory } from './file-memory.js';
import type { ImportReport, RecordPlace, Refusal, SourceItem } from './record.js';

/** Records per batch, so per transaction. */
export const IMPORT_BATCH_SIZE = 500;
/**
 * The most refusals a report lists; the last one listed then says how many more there were and of which
 * reasons (docs/decisions.md "Import: bounded memory").
 */
export const MAX_LISTED_REFUSALS = 10_000;

export interface ImportProgress {
  /** Records read so far (refused ones included). */
  readonly read: number;
  readonly imported: number;
  readonly skipped: number;
  readonly refused: number;
}

export interface ImportRun {
  readonly application: ImportApplication;
  readonly credentials: Pick<CredentialStore, 'importLookup' | 'importBatch'>;
  /** The application's limit of passkeys per user (`maxPasskeysPerUser`); absent: none. */
  readonly maxPasskeysPerUser?: number;
  /** The user handle the service would derive for a user name (ceremonies/user-handle.ts). */
  readonly derive: (username: string) => string;
  readonly now: () => number;
  readonly dryRun: boolean;
  readonly batchSize?: number;
  /** Told after every batch, and once at the end (with every refusal counted, listed or not). */
  readonly onProgress?: (progress: ImportProgress) => void;
}

export async function runImport(items: AsyncIterable<SourceItem>, run: ImportRun): Promise<ImportReport> {
  const batchSize = run.batchSize ?? IMPORT_BATCH_SIZE;
  const memory = new FileMemory(run.dryRun ? DRY_RUN_MEMORY : batchSize);
  const refusals = new RefusalList(MAX_LISTED_REFUSALS);
  let read = 0;
  let imported = 0;
  let skipped = 0;
  let batch: { at: RecordPlace; credential: CredentialRecord }[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const credentials = batch.map((b) => b.credential);
    const derive = derivedOnce(run.derive);
    const lookup = await run.credentials.importLookup(run.application.clientId, lookupQuery(credentials, derive));
    const plan = decideBatch(credentials, lookup, memory, derive, run.maxPasskeysPerUser);
    plan.decisions.forEach((decision, index) => {
      if (decision.kind === 'skip') skipped++;
      else if (decision.kind === 'refuse') refusals.add(batch[index]!.at, decision.reason, decision.message);
    });
    if (run.dryRun) imported += plan.records.length;
    else if (plan.records.length > 0 || plan.handles.length > 0) {
      const { written, overLimit } = await run.credentials.importBatch(
        run.application.clientId,
        plan.handles,
        plan.records,
        [],
        run.maxPasskeysPerUser,
      );
      // Between the read and the write, a registration may have brought a user to the limit (refused), and
      // another writer stored a record's id (left as it is: counted as skipped).
      const left = new Set(overLimit);
      batch.forEach(({ at, credential }) => {
        if (left.has(credential.credentialId))
          refusals.add(
            at,
            'PASSKEY_LIMIT_REACHED',
            `${credential.username} reached the application's limit of passkeys during the import`,
          );
      });
      imported += written;
      skipped += plan.records.length - written - overLimit.length;
      memory.clear();
    }
    batch = [];
    run.onProgress?.({ read, imported, skipped, refused: refusals.count });
  };

  for await (const item of items) {
    read++;
    if ('refused' in item) {
      refusals.add(item.at, item.refused.reason, item.refused.message);
      continue;
    }
    const checked = checkRecord(item.record, run.application, run.now());
    if ('reason' in checked) refusals.add(item.at, checked.reason, checked.message);
    else batch.push({ at: item.at, credential: checked.credential });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  run.onProgress?.({ read, imported, skipped, refused: refusals.count });
  return { imported, skipped, refused: refusals.list(), dryRun: run.dryRun };
}

/** `derive` for one batch, each name's handle computed once (an HMAC: the lookup and the decision both ask). */
function derivedOnce(derive: (username: string) => string): (username: string) => string {
  const handles = new Map<string, string>();
  return (username) => {
    let handle = handles.get(username);
    if (handle === undefined) {
      handle = derive(username);
      handles.set(username, handle);
    }
    return handle;
  };
}

/** The refusals of a report: the first `max` listed, the rest counted by reason in the last one's message. */
class RefusalList {
  readonly #listed: Refusal[] = [];
  readonly #unlisted = new Map<string, number>();
  count = 0;

  constructor(private readonly max: number) {}

  add(line: RecordPlace, reason: Refusal['reason'], message: string): void {
    this.count++;
    if (this.#listed.length < this.max) this.#listed.push({ line, reason, message });
    else this.#unlisted.set(reason, (this.#unlisted.get(reason) ?? 0) + 1);
  }

  list(): Refusal[] {
    const more = this.count - this.#listed.length;
    if (more === 0) return this.#listed;
    const last = this.#listed[this.#listed.length - 1]!;
    const reasons = [...this.#unlisted].map(([reason, n]) => `${reason} ${n}`).join(', ');
    return [
      ...this.#listed.slice(0, -1),
      { ...last, message: `${last.message} (and ${more} more refused records, not listed: ${reasons})` },
    ];
  }
}
