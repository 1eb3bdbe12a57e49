// The test harness of test/support/harness.ts served over a real socket: every `post` (and so every Flow
// step) goes through node:http on 127.0.0.1 with fetch, exactly as a relay would call the service.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectResponse } from '../../src/http/app.js';
import { Harness, type HarnessOptions, type RequestOptions } from './harness.js';

export class SocketHarness extends Harness {
  private server: Server | undefined;
  url = '';

  static async start(options: HarnessOptions = {}): Promise<SocketHarness> {
    const h = new SocketHarness(options);
    h.server = createServer(h.app.handler);
    await new Promise<void>((resolve) => h.server!.listen(0, '127.0.0.1', resolve));
    h.url = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`;
    return h;
  }

  override post(path: string, body: unknown, options: RequestOptions = {}): Promise<InjectResponse> {
    return postOverSocket(`${this.url}${path}`, this.headers(options), body);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** One POST through node:http with fetch (bounded), answered in the shape `inject` answers. */
export async function postOverSocket(
  url: string,
  requestHeaders: Record<string, string>,
  body: unknown,
): Promise<InjectResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: requestHeaders,
    body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: text, json: () => JSON.parse(text) };
}
