// One delivery attempt: a POST over node:http or node:https with one bound on the whole exchange
// (connecting, sending, the answer's status); the answer's body is read up to a few KiB and dropped.
import http from 'node:http';
import https from 'node:https';

export interface PostResult {
  /** The HTTP status, or null when no answer came (network error, timeout). */
  readonly status: number | null;
  /** What went wrong, for the dead-letter list: `HTTP 500`, `timeout after 10000 ms`, `ECONNREFUSED` … */
  readonly error: string | null;
}

export function postWebhook(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`timeout after ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    request.on('error', (error: NodeJS.ErrnoException) => {
      done({ status: null, error: error.code ?? error.message });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > 8192) response.destroy();
      });
      response.on('error', () => undefined);
      response.on('close', () => done({ status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` }));
      // 2xx is decided by the status: the body does not matter.
      if (status >= 200 && status < 300) done({ status, error: null });
    });
    request.end(body);
  });
}
