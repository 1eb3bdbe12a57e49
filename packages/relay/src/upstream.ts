// One POST to the service with exactly the headers the specification asks for, bounded in time and size.
import { type IncomingMessage, request as httpRequest } from 'node:http';
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
  /** `Bearer <relay secret>` when the application has one. */
  readonly authorization: string | undefined;
  readonly origin: string | undefined;
  /** The browser call's W3C trace context, passed on so the service's spans join the caller's trace. */
  readonly traceContext: TraceContext;
  readonly body: Buffer;
  readonly timeoutMs: number;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

export interface TraceContext {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** W3C Trace Context §3.2: version-traceid-parentid-flags, lower-case hex; version ff is invalid. */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The caller's `traceparent` (and its `tracestate`, only beside a valid traceparent), when each came once
 * and well-formed: the only headers of the browser's request that go on (the service continues the trace).
 */
export function traceContextOf(request: IncomingMessage): TraceContext {
  // headersDistinct keeps a doubled header doubled (an adapter's request object may lack it: then none).
  const distinct = request.headersDistinct as IncomingMessage['headersDistinct'] | undefined;
  const parent = distinct?.traceparent;
  if (parent?.length !== 1 || !TRACEPARENT.test(parent[0]!.trim())) return {};
  const state = distinct?.tracestate;
  const tracestate =
    state?.length === 1 && state[0]!.length <= 512 && /^[\x20-\x7e]*$/.test(state[0]!) ? state[0]!.trim() : '';
  return { traceparent: parent[0]!.trim(), ...(tracestate === '' ? {} : { tracestate }) };
}

export function postToService(call: UpstreamCall): Promise<UpstreamResult> {
  // Built from scratch: nothing of the browser's request (cookies, its User-agent, forwarded-for) goes on but
  // its trace context.
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'content-length': call.body.length,
    'user-agent': call.userAgent,
  };
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  if (call.origin !== undefined) headers.origin = call.origin;
  if (call.traceContext.traceparent !== undefined) headers.traceparent = call.traceContext.traceparent;
  if (call.traceContext.tracestate !== undefined) headers.tracestate = call.traceContext.tracestate;
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
