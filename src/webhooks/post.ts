// One delivery attempt: a POST over node:http or node:https with one bound on the whole exchange
// (resolving, connecting, sending, the answer's status); the answer's body is read up to a few KiB and
// dropped. The host is checked first (destination.ts): an address literal here, a name by the socket's own
// lookup, so the connection goes only to an address the check passed. Redirects are never followed (a 3xx
// is a failed attempt). What went wrong is said in the service's own words (a status, an error code, a
// timeout, a refused destination), never with text the receiver or an internal host sent.
import http from 'node:http';
import https from 'node:https';
import { literalHostProblem } from '../util/outbound-host.js';
import { checkedLookup, DestinationRefused, type DestinationRules } from './destination.js';

export interface PostResult {
  /** The HTTP status, or null when no answer came (network error, timeout, refused destination). */
  readonly status: number | null;
  /** What went wrong, for the dead-letter list: `HTTP 500`, `timeout after 10000 ms`, `ECONNREFUSED` … */
  readonly error: string | null;
  /** The destination was refused before any connection (destination.ts). */
  readonly refused?: true;
  /** No answer within the bound. */
  readonly timedOut?: true;
}

/** A Node error code (`ECONNREFUSED`, `ERR_TLS_CERT_ALTNAME_INVALID` …); anything else is not repeated. */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

function statusError(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

export function postWebhook(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
  destination: DestinationRules,
): Promise<PostResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const literal = literalHostProblem(target, destination.allowPrivateAddresses);
    if (literal !== undefined) {
      resolve({ status: null, error: literal, refused: true });
      return;
    }
    let settled = false;
    let timedOut = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      lookup: checkedLookup(destination),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error('timeout'));
    }, timeoutMs);
    timer.unref();
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (timedOut) done({ status: null, error: `timeout after ${timeoutMs} ms`, timedOut: true });
      else if (error instanceof DestinationRefused) done({ status: null, error: error.message, refused: true });
      else
        done({
          status: null,
          error: error.code !== undefined && ERROR_CODE.test(error.code) ? error.code : 'network error',
        });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > 8192) response.destroy();
      });
      response.on('error', () => undefined);
      response.on('close', () => done({ status, error: statusError(status) }));
      // 2xx is decided by the status: the body does not matter.
      if (status >= 200 && status < 300) done({ status, error: null });
    });
    request.end(body);
  });
}
