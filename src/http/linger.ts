// Closing a connection a client may still be writing to. Node ends and destroys a connection answered with
// `Connection: close` as soon as the answer is written; a client still uploading (an oversized body) then
// meets a reset and often never reads the answer. Mature servers linger instead: read and drop what is
// still in flight for a bounded time, and only then answer and close.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** The longest a closing connection keeps reading (and dropping) what its client still sends. */
export const LINGER_MS = 5_000;

const lingering = new WeakSet<Duplex>();

/** True once the connection is being drained or closed here: the HTTP parser's errors on it get no answer of their own. */
export function isLingering(socket: Duplex): boolean {
  return lingering.has(socket);
}

/** The most of a refused body read and dropped before answering: past it the connection just closes. */
export const DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * Reads and drops the rest of a request body the service will not use (an oversized one), until it ends,
 * `lingerMs` pass or `maxBytes` arrive, so that a client still sending it can then read the answer
 * instead of meeting a reset. Resolves, never rejects.
 */
export function drainRequest(req: IncomingMessage, lingerMs = LINGER_MS, maxBytes = DRAIN_BYTES): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  const socket = req.socket;
  lingering.add(socket);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      // The client stopped sending (even mid-body: the parser's complaint about that is not answered).
      socket.off('end', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > maxBytes) done();
    };
    const timer = setTimeout(done, lingerMs);
    timer.unref();
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    socket.once('end', done);
    req.resume();
  });
}

/** Ends the stream (after what was written), drops what still arrives, closes at the client's end or the bound. */
export function drainThenClose(socket: Duplex, lingerMs = LINGER_MS): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  // node:http pauses a connection whose answer is pending; what still arrives must flow (and be dropped).
  socket.on('data', () => undefined);
  socket.resume();
}
