// A lean keep-alive HTTP client for the load generator (node:http with one Agent, no fetch: undici's
// per-request overhead would make the generator, not the server, the bottleneck on one core).

import http from 'node:http';

export interface Target {
  readonly host: string;
  readonly port: number;
  readonly headers: Readonly<Record<string, string>>;
}

export interface Reply {
  readonly status: number;
  readonly body: Record<string, any>;
}

export function makeAgent(sockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/** POSTs JSON and parses the JSON answer; rejects on a socket error or after `timeoutMs`. */
export function postJson(
  agent: http.Agent,
  target: Target,
  path: string,
  body: unknown,
  timeoutMs = 10_000,
): Promise<Reply> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: target.host,
        port: target.port,
        path,
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json', 'content-length': payload.length },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>,
            });
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Latencies in ms, kept per endpoint. */
export class Latencies {
  readonly #byPath = new Map<string, number[]>();

  add(path: string, ms: number): void {
    let list = this.#byPath.get(path);
    if (!list) this.#byPath.set(path, (list = []));
    list.push(ms);
  }

  percentiles(path: string): { p50: number; p95: number; p99: number; count: number } {
    const list = [...(this.#byPath.get(path) ?? [])].sort((a, b) => a - b);
    const at = (p: number) =>
      list.length === 0 ? NaN : list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))]!;
    return { p50: at(50), p95: at(95), p99: at(99), count: list.length };
  }

  samples(path: string): number[] {
    return this.#byPath.get(path) ?? [];
  }

  paths(): string[] {
    return [...this.#byPath.keys()];
  }
}

/** Waits (bounded) until a POST to `path` gets any HTTP answer. */
export async function waitForServer(target: Target, path: string, withinMs = 20_000): Promise<void> {
  const agent = makeAgent(1);
  const deadline = Date.now() + withinMs;
  try {
    while (Date.now() < deadline) {
      try {
        await postJson(agent, target, path, {}, 1000);
        return;
      } catch {
        await new Promise((ok) => setTimeout(ok, 100));
      }
    }
    throw new Error(`server on port ${target.port} did not answer within ${withinMs} ms`);
  } finally {
    agent.destroy();
  }
}
