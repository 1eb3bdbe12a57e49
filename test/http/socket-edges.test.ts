// What Node's HTTP parser would answer on its own (bad framing, control bytes, no Host, oversized headers,
// slow clients) and a client still uploading a body that is too large: over real sockets, every answer is
// the envelope with an error name and `Connection: close`, and the client can read it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createServiceServer } from '../../src/http/server.js';
import { CLIENT_ID, Harness, ORIGIN, PATHS, VENDOR } from '../support/harness.js';

interface RawAnswer {
  readonly text: string;
  /** The first socket error the client saw (EPIPE, ECONNRESET), if any. */
  readonly error: string | null;
}

/** Sends `head`, then `bodyBytes` of body in 64 KiB writes (if any); resolves with all it read when the socket closes. */
function exchange(port: number, head: string | Buffer, bodyBytes = 0, endAfterHead = true): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | null = null;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('socket test timed out'));
    }, 20_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), error });
    });
    socket.write(head);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < bodyBytes && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (endAfterHead && !socket.destroyed) socket.end();
    };
    if (bodyBytes > 0) pump();
    else if (endAfterHead) socket.end();
  });
}

/** Asserts an envelope answer: status, error name, Connection: close, JSON body. */
function expectEnvelope(answer: RawAnswer, status: number, name: string): void {
  const [headBlock = '', body = ''] = answer.text.split('\r\n\r\n');
  const head = `${headBlock}\r\n`;
  assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `got ${JSON.stringify(answer.text.slice(0, 200))}`);
  assert.match(head, /\r\nconnection: close\r\n/i);
  assert.match(head, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
  assert.match(head, /\r\nx-request-id: \S+\r\n/i);
  const envelope = JSON.parse(body) as { status: string; errorMessage: [string, string]; sessionId: string };
  assert.equal(envelope.status, 'failed');
  assert.equal(envelope.errorMessage[0], name);
  assert.ok(envelope.errorMessage[1].length > 0);
  assert.equal(envelope.sessionId, '');
}

const HEADERS = [`User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`, `Origin: ${ORIGIN}`, 'Content-Type: application/json'];
const request = (lines: readonly string[], path: string = PATHS.assertionOptions, version = '1.1') =>
  [`POST ${path} HTTP/${version}`, ...lines, '', ''].join('\r\n');

describe('answers the HTTP parser would give itself: the envelope, over a real socket', () => {
  const h = new Harness();
  let server: Server;
  let port = 0;

  before(async () => {
    server = createServiceServer(h.app, { headersTimeoutMs: 400, requestTimeoutMs: 20_000, checkIntervalMs: 50 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('Content-Length together with Transfer-Encoding → 400 MALFORMED_HTTP_REQUEST', async () => {
    expectEnvelope(
      await exchange(
        port,
        `${request(['Host: x', ...HEADERS, 'Content-Length: 2', 'Transfer-Encoding: chunked'])}2\r\n{}\r\n0\r\n\r\n`,
      ),
      400,
      'MALFORMED_HTTP_REQUEST',
    );
  });

  it('a NUL or another control byte in a header → 400 MALFORMED_HTTP_REQUEST', async () => {
    expectEnvelope(
      await exchange(port, request(['Host: x', ...HEADERS, 'X-Evil: a\u0000b', 'Content-Length: 0'])),
      400,
      'MALFORMED_HTTP_REQUEST',
    );
    expectEnvelope(
      await exchange(port, request(['Host: x', ...HEADERS, 'X-Evil: a\u0001b', 'Content-Length: 0'])),
      400,
      'MALFORMED_HTTP_REQUEST',
    );
  });

  it('HTTP/1.1 without Host → 400 MALFORMED_HTTP_REQUEST; HTTP/1.0 without Host is served', async () => {
    const body = '{"username":"ghost#idp.example.test"}';
    expectEnvelope(
      await exchange(port, `${request([...HEADERS, `Content-Length: ${body.length}`])}${body}`),
      400,
      'MALFORMED_HTTP_REQUEST',
    );
    const old = await exchange(
      port,
      `${request([...HEADERS, `Content-Length: ${body.length}`], PATHS.assertionOptions, '1.0')}${body}`,
    );
    assert.match(old.text, /^HTTP\/1\.1 200 /);
  });

  it('a header block over 16 KiB → 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    expectEnvelope(
      await exchange(port, request(['Host: x', ...HEADERS, `X-Big: ${'a'.repeat(17 * 1024)}`, 'Content-Length: 0'])),
      431,
      'REQUEST_HEADERS_TOO_LARGE',
    );
  });

  it('a client too slow to send its headers → 408 REQUEST_TIMEOUT', async () => {
    // Half a request line and then nothing: the server's header timeout answers.
    expectEnvelope(
      await exchange(port, 'POST /api/assertion/options HTTP/1.1\r\nHost: x\r\n', 0, false),
      408,
      'REQUEST_TIMEOUT',
    );
  });
});

describe('a body too large, still being uploaded: the client reads the 413', () => {
  it('20 clients uploading 5 MiB at once each read the 413 envelope (no broken pipe: the server drains what is in flight)', async () => {
    // The service's own timeouts: a loaded machine must not turn this into a header timeout.
    const server = createServiceServer(new Harness().app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const size = 5 * 1024 * 1024;
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          exchange(port, request(['Host: x', ...HEADERS, `Content-Length: ${size}`]), size),
        ),
      );
      for (const answer of answers) {
        assert.equal(answer.error, null, 'the client saw a socket error');
        expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
