// The node:http handler over a real socket: the same answers as inject, plus what only a socket shows
// (a doubled User-agent header, an oversized body that is not read to its end).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { createServiceServer } from '../../src/http/server.js';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CLIENT_ID, Harness, ORIGIN, PATHS, VENDOR, username } from '../support/harness.js';

/** Sends raw bytes, returns the raw answer (bounded by a timeout). */
function raw(port: number, request: string | Buffer, trailing?: () => Buffer | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('socket test timed out'));
    }, 10_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {
      /* the server may close while we still write */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.write(request);
    // Keep writing more body for a while: the server must answer and close without reading it all.
    let sent = 0;
    const pump = () => {
      const more = trailing?.();
      if (!more || socket.destroyed || sent > 4_000_000) {
        socket.end();
        return;
      }
      sent += more.length;
      if (socket.write(more)) setImmediate(pump);
      else socket.once('drain', pump);
    };
    if (trailing) pump();
    else socket.end();
  });
}

describe('node:http handler', () => {
  const h = new Harness();
  let server: Server;
  let port = 0;

  before(async () => {
    server = createServiceServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('serves an operation with the envelope and X-Request-Id', async () => {
    const res = await fetch(`http://127.0.0.1:${port}${PATHS.attestationOptions}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`, origin: ORIGIN },
      body: JSON.stringify({ username: username('sock') }),
    });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-request-id'));
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
  });

  it('two User-agent headers → 400 CLIENT_ID_MALFORMED (Node would otherwise keep only the first)', async () => {
    const body = JSON.stringify({ username: username('sock') });
    const answer = await raw(
      port,
      [
        `POST ${PATHS.attestationOptions} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`,
        `User-Agent: ${VENDOR} AppID: other`,
        `Origin: ${ORIGIN}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /"CLIENT_ID_MALFORMED"/);
  });

  it('header names in any case are the same headers, and a doubled one is seen whatever the case of each', async () => {
    const body = JSON.stringify({ username: username('sock') });
    const request = (userAgents: readonly string[]) =>
      [
        `POST ${PATHS.attestationOptions} HTTP/1.1`,
        'Host: 127.0.0.1',
        'CONTENT-type: application/json',
        ...userAgents,
        `oRiGiN: ${ORIGIN}`,
        `content-LENGTH: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n');
    const single = await raw(port, request([`USER-AGENT: ${VENDOR} AppID: ${CLIENT_ID}`]));
    assert.match(single, /^HTTP\/1\.1 200 /);
    assert.match(single, /"status":"ok"/);
    const doubled = await raw(
      port,
      request([`user-agent: ${VENDOR} AppID: ${CLIENT_ID}`, `User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`]),
    );
    assert.match(doubled, /^HTTP\/1\.1 400 /);
    assert.match(doubled, /"CLIENT_ID_MALFORMED"/);
  });

  it('two origin headers → 403 ORIGIN_NOT_ALLOWED (standard variant)', async () => {
    const body = JSON.stringify({ username: username('sock') });
    const answer = await raw(
      port,
      [
        `POST ${PATHS.attestationOptions} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`,
        `Origin: ${ORIGIN}`,
        `Origin: ${ORIGIN}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    assert.match(answer, /^HTTP\/1\.1 403 /);
    assert.match(answer, /"ORIGIN_NOT_ALLOWED"/);
  });

  it('an endless chunked body → 413 PAYLOAD_TOO_LARGE after 64 KiB, then the connection closes', async () => {
    const chunk = Buffer.from(`4000\r\n${'x'.repeat(0x4000)}\r\n`);
    const answer = await raw(
      port,
      [
        `POST ${PATHS.attestationOptions} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `User-Agent: ${VENDOR} AppID: ${CLIENT_ID}`,
        `Origin: ${ORIGIN}`,
        'Transfer-Encoding: chunked',
        '',
        '',
      ].join('\r\n'),
      () => chunk,
    );
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"PAYLOAD_TOO_LARGE"/);
    assert.match(answer, /[Cc]onnection: close/);
  });

  it('unknown path over the socket → 404 envelope', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/index.html`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = (await res.json()) as { errorMessage: string[] };
    assert.equal(body.errorMessage[0], 'NOT_FOUND');
  });
});
