// The SQLite writer thread: owns one connection to the database file and group-commits the writes the
// service sends (GroupCommit, src/stores/sqlite/writes.ts), so the service's event loop never waits for a flush.
// Started by src/stores/sqlite/writer.ts; the messages between them are typed here.

import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteDatabase } from './open.js';
import {
  failure,
  GroupCommit,
  type SqliteFollowUps,
  type SqliteWriteName,
  type SqliteWriteParams,
  type WriteOutcome,
} from './writes.js';

// --- The messages between the process and this thread (writer.ts imports them as types only) ---

export interface WriterThreadData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** At most this many writes per transaction (a bound on how long one flush holds the write lock). */
  readonly maxGroup: number;
}

export type WriterRequest =
  | {
      readonly kind: 'write';
      readonly id: number;
      readonly name: SqliteWriteName;
      readonly params: SqliteWriteParams;
      readonly then?: SqliteFollowUps;
    }
  | { readonly kind: 'ping'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number };

/**
 * What crosses between the threads: requests and replies travel in arrays, one message per event-loop turn
 * (per group on the way back), because each postMessage costs far more than cloning one more small object.
 */
export type WriterMessage = readonly WriterRequest[];

/** The transaction that carried a write is `group` (0 for pings and the thread's ready message). */
export type WriterReply = { readonly id: number } & WriteOutcome;

const port = parentPort!;
const { path, busyTimeoutMs, maxGroup } = workerData as WriterThreadData;
const db = openSqliteDatabase(path, { busyTimeoutMs });
const commits = new GroupCommit(db, { maxGroup });

let outbox: WriterReply[] = [];

/** Replies of one turn (one group, at most) go back as one message. */
function reply(message: WriterReply): void {
  outbox.push(message);
  if (outbox.length === 1) queueMicrotask(sendReplies);
}

function sendReplies(): void {
  const batch = outbox;
  outbox = [];
  port.postMessage(batch);
}

port.on('message', (requests: WriterMessage) => {
  for (const request of requests) handle(request);
});

function handle(request: WriterRequest): void {
  switch (request.kind) {
    case 'write':
      commits.push(
        request.name,
        bindable(request.params),
        (outcome) => reply({ id: request.id, ...outcome }),
        request.then,
      );
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
      commits.flushAll();
      db.close();
      reply({ id: request.id, ok: true, changes: 0, group: 0 });
      sendReplies();
      port.close();
      return;
  }
}
/**
 * The message's structured clone turned the stores' Buffers into Uint8Arrays, and better-sqlite3 binds only
 * Buffers as BLOBs: views of the same bytes again (the inline writer gets the stores' Buffers as they are).
 */
function bindable(params: SqliteWriteParams): SqliteWriteParams {
  const out: Record<string, SqliteWriteParams[string]> = {};
  for (const [key, value] of Object.entries(params)) {
    out[key] =
      value instanceof Uint8Array && !Buffer.isBuffer(value)
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : value;
  }
  return out;
}

reply({ id: -1, ok: true, changes: 0, group: 0 }); // ready: the file is open and migrated
