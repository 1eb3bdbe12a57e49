// The admin listener's streamed bodies: a request body handed to its route as bytes while they arrive (an
// import's file: never buffered whole, never parsed here), bounded by its own byte limit and by how long the
// client may leave it waiting; and an answer written chunk by chunk as its route makes them (an export), at
// the pace the client reads. Also the deadline every other request body has to arrive in full.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminError } from './errors.js';

/** How long a request may take to arrive in full (a body read whole), as the listener's requestTimeout was. */
export const BODY_DEADLINE_MS = 30_000;
/** A streamed body: the longest the client may leave the listener waiting for its next bytes. */
export const STREAM_IDLE_MS = 30_000;
/** The largest streamed body (an import's file) by default: 1 GiB (docs/admin.md, "Import and export passkeys"). */
export const STREAM_BODY_BYTES = 1024 ** 3;

/** An answer whose body is written as it is made: its first chunk is already made (or the body is empty). */
export interface StreamedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly headers?: Record<string, string>;
  readonly first: string | undefined;
  readonly rest: AsyncIterator<string>;
}

/**
 * A streamed answer of `chunks`, once its first chunk is made: a failure before it (an unknown application,
 * a bad format) is still an error envelope; after it, the status is sent and only the connection can say so.
 */
export async function streamedAnswer(
  chunks: AsyncIterable<string>,
  contentType: string,
  headers?: Record<string, string>,
): Promise<StreamedAnswer> {
  const rest = chunks[Symbol.asyncIterator]();
  const first = await rest.next();
  return {
    status: 200,
    contentType,
    ...(headers ? { headers } : {}),
    first: first.done ? undefined : first.value,
    rest,
  };
}

export const isStreamed = (answer: object): answer is StreamedAnswer => 'rest' in answer;

/**
 * Writes a streamed answer, waiting for the client to read each chunk before asking for the next. A client
 * that goes away ends the iteration (its `return`: an export audits itself as incomplete); a failure after
 * the status was sent cuts the connection, so that the client sees a truncated body, never a complete one.
 */
export async function sendStreamed(
  req: IncomingMessage,
  res: ServerResponse,
  answer: StreamedAnswer,
  headers: Record<string, string>,
): Promise<void> {
  res.writeHead(answer.status, { 'content-type': answer.contentType, ...headers, ...answer.headers });
  let finished = answer.first === undefined;
  try {
    if (req.method !== 'HEAD' && answer.first !== undefined) {
      let chunk: IteratorResult<string> = { done: false, value: answer.first };
      while (!chunk.done) {
        if (!res.write(chunk.value) && !(await drained(res))) return;
        chunk = await answer.rest.next();
      }
      finished = true;
    }
    res.end();
  } catch (error) {
    finished = true;
    res.destroy();
    throw error;
  } finally {
    if (!finished) await answer.rest.return?.();
  }
}

/** True once the client read what was written; false when the connection closed first. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean) => () => {
      res.off('drain', onDrain).off('close', onClose);
      resolve(value);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on('drain', onDrain).on('close', onClose);
  });
}

/**
 * The request body as it arrives, at most `limit` bytes (PAYLOAD_TOO_LARGE, before a byte is read when the
 * declared Content-Length is above it). Only the time spent waiting for the client counts against `idleMs`:
 * a client silent that long has its connection closed, and the reading fails with INVALID_REQUEST.
 */
export async function* streamedBody(
  req: IncomingMessage,
  limit: number,
  idleMs = STREAM_IDLE_MS,
): AsyncIterable<Uint8Array> {
  const declared = req.headersDistinct['content-length'];
  if (declared?.length === 1 && Number(declared[0]) > limit) throw tooLarge(limit);
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let size = 0;
  for (;;) {
    const timer = setTimeout(() => req.destroy(), idleMs);
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch {
      throw new AdminError('INVALID_REQUEST', 'The request body was not received completely.', [
        '(body): the client stopped sending it or went away',
      ]);
    } finally {
      clearTimeout(timer);
    }
    if (next.done) return;
    size += next.value.length;
    if (size > limit) throw tooLarge(limit);
    yield next.value;
  }
}

function tooLarge(limit: number): AdminError {
  return new AdminError('PAYLOAD_TOO_LARGE', `The request body must be at most ${limit} bytes.`);
}

/**
 * Closes the connection of a request whose body has not arrived in full `ms` after it began (the listener's
 * requestTimeout, per request, so that a streamed body can take longer): `stream()` hands the request over to
 * streamedBody's own idle limit.
 */
export function bodyDeadline(req: IncomingMessage, ms = BODY_DEADLINE_MS): { stream(): void } {
  const timer = setTimeout(() => {
    if (!req.complete) req.destroy();
  }, ms);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  return { stream: () => clearTimeout(timer) };
}
