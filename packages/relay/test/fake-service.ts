// A stand-in for the passkey service on a real socket: records what the relay sent, answers as scripted.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: Record<string, unknown>;
}

export interface ScriptedAnswer {
  readonly status?: number;
  readonly body?: unknown;
  /** Raw text instead of JSON (e.g. a proxy's HTML page). */
  readonly text?: string;
  readonly headers?: Record<string, string>;
  /** Never answer (timeout tests). */
  readonly hang?: boolean;
}

export interface FakeService {
  readonly url: string;
  readonly seen: SeenRequest[];
  answer(path: string, script: (request: SeenRequest) => ScriptedAnswer): void;
  close(): Promise<void>;
}

export async function startFakeService(): Promise<FakeService> {
  const seen: SeenRequest[] = [];
  const scripts = new Map<string, (request: SeenRequest) => ScriptedAnswer>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: SeenRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
    seen.push(request);
    const script = scripts.get(request.path);
    const answer: ScriptedAnswer = script
      ? script(request)
      : { status: 404, body: { status: 'failed', errorMessage: ['NOT_FOUND', 'no script'], sessionId: '' } };
    if (answer.hang) return;
    res.statusCode = answer.status ?? 200;
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    if (answer.text !== undefined) {
      res.setHeader('content-type', 'text/html');
      res.end(answer.text);
    } else {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer.body));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answer: (path, script) => void scripts.set(path, script),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves a node:http handler on 127.0.0.1:0. */
export async function serve(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** A browser-like POST: whatever headers a browser (or an attacker's page) might send. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // left empty: the assertion on `text` or `status` will say what came back
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const clientData = (challenge: string, type = 'webauthn.create') =>
  Buffer.from(JSON.stringify({ type, challenge, origin: 'https://localhost:8443' })).toString('base64url');

export const ok = (fields: Record<string, unknown> = {}) => ({
  status: 'ok',
  errorMessage: '',
  sessionId: '',
  ...fields,
});
