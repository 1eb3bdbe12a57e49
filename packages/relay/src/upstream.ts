// One POST to the service with exactly the headers the specification asks for, bounded in time and size.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Envelope } from './errors.js';

export type UpstreamResult =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly raw: Buffer;
      readonly body: Envelope;
      readonly retryAfter: string | undefined;
    }
  | { readonly kind: 'unreachable'; readonly reason: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'invalid'; readonly reason: string };

export interface UpstreamCall {
  readonly url: URL;
  readonly userAgent: string;
  readonly origin: string | undefined;
  readonly body: Buffer;
  readonly timeoutMs: number;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

export function postToService(call: UpstreamCall): Promise<UpstreamResult> {
  // Built from scratch: nothing of the browser's request (cookies, its User-agent, forwarded-for) goes on.
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'content-length': call.body.length,
    'user-agent': call.userAgent,
  };
  if (call.origin !== undefined) headers.origin = call.origin;
  const send = call.url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: UpstreamResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const outgoing = send(call.url, { method: 'POST', headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          outgoing.destroy();
          finish({ kind: 'invalid', reason: 'answer larger than 1 MiB' });
        } else chunks.push(chunk);
      });
      answer.on('error', (error) => finish({ kind: 'unreachable', reason: error.message }));
      answer.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = parseEnvelope(raw);
        if (body === undefined)
          finish({ kind: 'invalid', reason: `HTTP ${answer.statusCode} without a JSON envelope` });
        else {
          const retryAfter = answer.headers['retry-after'];
          finish({
            kind: 'answer',
            status: answer.statusCode ?? 502,
            raw,
            body,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        }
      });
    });
    // Whole-call deadline (connect, send, answer): a stuck service must never hang the browser.
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      outgoing.destroy();
    }, call.timeoutMs);
    outgoing.on('error', (error) => finish({ kind: 'unreachable', reason: error.message }));
    outgoing.end(call.body);
  });
}

function parseEnvelope(raw: Buffer): Envelope | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const status = (value as { status?: unknown }).status;
    return status === 'ok' || status === 'failed' ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}
