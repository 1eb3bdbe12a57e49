// One request, whichever way it arrived: from node:http (`callOf`) or from `inject` (an in-memory request
// that takes the very same path as a socket's, for the ceremony tests).

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

export interface InjectRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly remoteAddress?: string;
}

export interface InjectResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  readonly body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape without a cast
  json(): any;
}

/** One request, whichever way it arrived. Header values are every occurrence, so doubles can be refused. */
export interface Call {
  /** HTTP/1.1 without a Host header (RFC 9112 §3.2): refused before anything else. */
  readonly hostMissing: boolean;
  readonly method: string;
  readonly url: string;
  header(name: string): readonly string[] | undefined;
  readonly body: Readable;
  readonly remoteAddress: string | null;
}

/** inject() feeds its body in chunks of this size, like a socket would. */
const INJECT_CHUNK = 16 * 1024;

export function callOf(req: IncomingMessage): Call {
  return {
    hostMissing: req.httpVersion === '1.1' && req.headersDistinct.host === undefined,
    method: req.method ?? '',
    url: req.url ?? '/',
    header: (name) => req.headersDistinct[name],
    body: req,
    remoteAddress: req.socket.remoteAddress ?? null,
  };
}

export function injectedCall(request: InjectRequest): Call {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name.toLowerCase(), value);
  const bytes = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += INJECT_CHUNK) chunks.push(bytes.subarray(at, at + INJECT_CHUNK));
  return {
    hostMissing: false,
    method: request.method.toUpperCase(),
    url: request.url,
    header: (name) => (headers.has(name) ? [headers.get(name)!] : undefined),
    body: Readable.from(chunks),
    remoteAddress: request.remoteAddress ?? '127.0.0.1',
  };
}
