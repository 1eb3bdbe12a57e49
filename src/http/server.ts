// The service's node:http server around the app: bounded waits for slow clients, and the envelope for the
// requests Node's HTTP parser refuses itself (bad framing, control bytes in headers, oversized header
// blocks, timeouts), which it would otherwise answer with an empty body. HTTP/1.1 without Host is refused
// by the app (app.ts), so that its answer is the envelope too.

import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ErrorName } from '../errors/catalogue.js';
import type { Answer, App } from './app.js';
import { drainThenClose, isLingering } from './linger.js';

export interface ServerOptions {
  /** The whole request, headers and body (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** The header block (default 20 s). */
  readonly headersTimeoutMs?: number;
  /** An idle kept-alive connection (default 5 s). */
  readonly keepAliveTimeoutMs?: number;
  /** How often Node looks for requests past those bounds (default 1 s). */
  readonly checkIntervalMs?: number;
}

/** The largest header block accepted: Node's default, named here because the 431 answer depends on it. */
export const MAX_HEADER_BYTES = 16 * 1024;

export function createServiceServer(app: App, options: ServerOptions = {}): Server {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      // Checked by the app instead, which answers with the envelope.
      requireHostHeader: false,
      connectionsCheckingInterval: options.checkIntervalMs ?? 1_000,
    },
    app.handler,
  );
  // Bounded waits for slow or idle clients (a slow-loris connection must not hold a socket forever).
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.headersTimeout = options.headersTimeoutMs ?? 20_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(app, error, socket));
  return server;
}

function answerClientError(app: App, error: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer: the client is gone, or the request was answered already (a lingering close).
  // A request being drained (linger.ts) is answered by the app when the drain ends.
  if (isLingering(socket) && error.code !== 'ECONNRESET') return;
  const answered = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || answered) {
    socket.destroy();
    return;
  }
  const answer = app.failure(nameOf(error), (socket as Socket).remoteAddress ?? null);
  socket.write(serialize(answer));
  drainThenClose(socket);
}

function nameOf(error: NodeJS.ErrnoException): ErrorName {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'REQUEST_HEADERS_TOO_LARGE';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  return 'MALFORMED_HTTP_REQUEST';
}

function serialize(answer: Answer): string {
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of Object.entries(answer.headers)) head.push(`${name}: ${value}`);
  return `${head.join('\r\n')}\r\n\r\n${answer.body}`;
}
