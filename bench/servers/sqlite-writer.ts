// Worker thread of the "writer thread" proposal (ours-group-commit.ts --writer-thread): owns its own
// connection to the SQLite file and commits every write that arrived while the previous COMMIT (and its
// fsync) was running, as one transaction. The event loop of the service never waits for a disk flush.

import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteDatabase, SqliteCredentialStore } from '../../src/stores/sqlite.js';
import type { CredentialRecord, CredentialUse } from '../../src/stores/types.js';

export type WriteRequest =
  | { readonly id: number; readonly kind: 'create'; readonly record: CredentialRecord }
  | { readonly id: number; readonly kind: 'recordUse'; readonly clientId: string; readonly credentialId: string; readonly use: CredentialUse };

export type WriteReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: string; readonly unavailable: boolean };

const port = parentPort!;
const db = openSqliteDatabase((workerData as { path: string }).path);
const store = new SqliteCredentialStore(db);
let queue: WriteRequest[] = [];
let scheduled = false;

function start(request: WriteRequest): Promise<unknown> {
  if (request.kind === 'create') {
    // Structured clone turned the Buffer into a Uint8Array; SQLite binds Buffers.
    const record = { ...request.record, publicKey: Buffer.from(request.record.publicKey) };
    return store.create(record);
  }
  return store.recordUse(request.clientId, request.credentialId, request.use);
}

async function flush(): Promise<void> {
  const batch = queue;
  queue = [];
  scheduled = false;
  let outcomes: PromiseSettledResult<unknown>[];
  try {
    db.exec('BEGIN IMMEDIATE');
    const started = batch.map(start);
    db.exec('COMMIT');
    outcomes = await Promise.allSettled(started);
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    for (const r of batch) port.postMessage({ id: r.id, ok: false, error: (error as Error).message, unavailable: true } satisfies WriteReply);
    return;
  }
  batch.forEach((r, i) => {
    const o = outcomes[i]!;
    port.postMessage((o.status === 'fulfilled'
      ? { id: r.id, ok: true, value: o.value }
      : { id: r.id, ok: false, error: String((o.reason as Error)?.message ?? o.reason), unavailable: false }) satisfies WriteReply);
  });
}

port.on('message', (request: WriteRequest | 'close') => {
  if (request === 'close') {
    db.close();
    port.close();
    return;
  }
  queue.push(request);
  if (!scheduled) {
    scheduled = true;
    setImmediate(() => void flush());
  }
});
