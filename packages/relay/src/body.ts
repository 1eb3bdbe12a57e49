// Reads the browser's JSON body with a hard size limit: the relay never buffers more than it accepts.
import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { readonly kind: 'ok'; readonly value: Record<string, unknown> }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'not-json-type' }
  | { readonly kind: 'malformed' };

export function isJsonContentType(header: string | undefined): boolean {
  const type = (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function parseJsonObject(text: string): BodyResult {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'malformed' };
    return { kind: 'ok', value: value as Record<string, unknown> };
  } catch {
    return { kind: 'malformed' };
  }
}

export async function readJsonBody(request: IncomingMessage, limit: number): Promise<BodyResult> {
  if (!isJsonContentType(request.headers['content-type'])) {
    request.resume();
    return { kind: 'not-json-type' };
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    return { kind: 'too-large' };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Keep draining (so the answer reaches the browser) but stop buffering once over the limit.
    if (size > limit) tooLarge = true;
    else chunks.push(chunk);
  }
  if (tooLarge) return { kind: 'too-large' };
  return parseJsonObject(Buffer.concat(chunks).toString('utf8'));
}
