// The SQLite writer thread: owns one connection to the database file and commits the writes that queued
// up while its previous COMMIT (and its fsync) ran as ONE transaction ("group commit"). Each write is
// answered only after the COMMIT that contains it returned, so an answer still means "on disk"; the
// service's event loop never waits for a flush, and one flush covers every ceremony that arrived together.
// Started by src/stores/sqlite-writer.ts; the protocol types live there.

import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { openSqliteDatabase } from './sqlite.js';
import { SQLITE_UNAVAILABLE, SQLITE_WRITES, type SqliteWriteName, type SqliteWriteParams } from './sqlite-writes.js';
import type { WriterReply, WriterRequest, WriterThreadData, WriteFailure } from './sqlite-writer.js';

const port = parentPort!;
const { path, busyTimeoutMs, maxGroup } = workerData as WriterThreadData;
const db = openSqliteDatabase(path, { busyTimeoutMs });
// Prepared on first use: the audit table is created by the audit store after this connection opened.
const prepared = new Map<SqliteWriteName, Database.Statement>();
let queue: Extract<WriterRequest, { kind: 'write' }>[] = [];
let scheduled = false;
/** Numbers the transactions, so the service can tell how many writes each flush carried. */
let group = 0;

function statement(name: SqliteWriteName): Database.Statement {
  let found = prepared.get(name);
  if (found === undefined) {
    found = db.prepare(SQLITE_WRITES[name]);
    prepared.set(name, found);
  }
  return found;
}

/** Structured clone turned Buffers into Uint8Arrays; better-sqlite3 binds Buffers as BLOBs. */
function bindable(params: SqliteWriteParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) out[key] = value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
  return out;
}

function failure(error: unknown): WriteFailure {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, message, code: typeof code === 'string' ? code : null, unavailable: typeof code === 'string' && SQLITE_UNAVAILABLE.test(code) };
}

function reply(message: WriterReply): void {
  port.postMessage(message);
}

/** Runs one group: a single write commits on its own; several share one IMMEDIATE transaction. */
function flush(): void {
  scheduled = false;
  if (queue.length === 0 || !db.open) return;
  const writes = queue.slice(0, maxGroup);
  queue = queue.slice(writes.length);
  if (queue.length > 0) schedule();
  group += 1;
  if (writes.length === 1) {
    const [only] = writes;
    try {
      reply({ id: only!.id, ok: true, changes: statement(only!.name).run(bindable(only!.params)).changes, group });
    } catch (error) {
      reply({ id: only!.id, ...failure(error) });
    }
    return;
  }
  const outcomes: WriterReply[] = [];
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const write of writes) {
      try {
        outcomes.push({ id: write.id, ok: true, changes: statement(write.name).run(bindable(write.params)).changes, group });
      } catch (error) {
        // A failed statement undoes only itself, unless SQLite rolled the whole transaction back (disk full,
        // I/O error): then nothing of the group is stored and every write of it has failed.
        if (!db.inTransaction) throw error;
        outcomes.push({ id: write.id, ...failure(error) });
      }
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    const failed = failure(error);
    for (const write of writes) reply({ id: write.id, ...failed, unavailable: true });
    return;
  }
  for (const outcome of outcomes) reply(outcome);
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // After every message already delivered has been queued: they form this group.
  setImmediate(flush);
}

port.on('message', (request: WriterRequest) => {
  switch (request.kind) {
    case 'write':
      queue.push(request);
      schedule();
      return;
    case 'ping':
      try {
        db.prepare('SELECT 1').get();
        reply({ id: request.id, ok: true, changes: 0, group: 0 });
      } catch (error) {
        reply({ id: request.id, ...failure(error) });
      }
      return;
    case 'close':
      // Everything queued is committed first; then the connection closes and the thread ends.
      while (queue.length > 0) flush();
      db.close();
      reply({ id: request.id, ok: true, changes: 0, group: 0 });
      port.close();
      return;
  }
});
reply({ id: -1, ok: true, changes: 0, group: 0 }); // ready: the file is open and migrated
