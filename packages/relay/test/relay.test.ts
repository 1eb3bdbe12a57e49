// The relay against a fake service on real sockets: headers, path mapping, limits, pass-through, hooks.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createRelay, type RelayOptions } from '../src/index.js';
import { ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

const allowAll = () => true;

async function withRelay(
  service: FakeService,
  options: Partial<RelayOptions>,
  test: (url: string) => Promise<void>,
): Promise<void> {
  const relay = createRelay({
    serviceUrl: service.url,
    clientId: 'demo-client',
    prefix: '', // the routes at the root (the default is /relay)
    origin: 'https://idp.example.test',
    mayRegister: allowAll,
    ...options,
  });
  const server = await serve(relay.handler);
  try {
    await test(server.url);
  } finally {
    await server.close();
  }
}

describe('relay: standard variant', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/attestation/options', () => ({
      body: ok({ challenge: 'c-att', timeout: 180000, rp: { id: 'idp.example.test' } }),
    }));
    service.answer('/api/assertion/options', () => ({
      body: ok({ challenge: 'c-ass', timeout: 180000, allowCredentials: [] }),
    }));
    service.answer('/api/assertion/result', () => ({
      status: 400,
      body: { status: 'failed', errorMessage: ['CHALLENGE_NOT_MATCHED', 'x'], sessionId: 's-1' },
    }));
    service.answer('/api/attestation/result', () => ({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { status: 'failed', errorMessage: ['RATE_LIMITED', 'slow down'], sessionId: '' },
    }));
  });
  after(() => service.close());

  it('maps its four paths onto /api/… of the service, under a configurable prefix', async () => {
    await withRelay(service, { prefix: '/passkey/' }, async (url) => {
      for (const operation of ['attestation/options', 'attestation/result', 'assertion/options', 'assertion/result']) {
        const before = service.seen.length;
        await post(`${url}/passkey/${operation}`, { username: 'alice#idp.example.test', response: {} });
        assert.equal(service.seen.length, before + 1);
        assert.equal(service.seen.at(-1)!.path, `/api/${operation}`);
        assert.equal(service.seen.at(-1)!.method, 'POST');
      }
      const unprefixed = await post(`${url}/attestation/options`, { username: 'alice#idp.example.test' });
      assert.equal(unprefixed.status, 404);
      assert.equal(unprefixed.json.status, 'failed');
    });
  });

  it('keeps a path in serviceUrl (service behind a path prefix)', async () => {
    await withRelay(service, { serviceUrl: `${service.url}/fido/` }, async (url) => {
      await post(`${url}/assertion/options`, { username: 'alice#idp.example.test' });
      assert.equal(service.seen.at(-1)!.path, '/fido/api/assertion/options');
    });
  });

  it('sets User-agent and origin itself, overwriting the browser, and forwards no other header or cookie', async () => {
    await withRelay(service, {}, async (url) => {
      await post(
        `${url}/assertion/options`,
        { username: 'alice#idp.example.test' },
        {
          'user-agent': 'Mozilla/5.0 Vendor AppID: someone-else',
          origin: 'https://evil.example',
          cookie: 'session=secret',
          authorization: 'Bearer secret',
          referer: 'https://idp.example.test/login',
          'x-forwarded-for': '10.0.0.1',
          'x-custom': '1',
        },
      );
      const seen = service.seen.at(-1)!;
      assert.equal(seen.headers['user-agent'], 'Vendor AppID: demo-client');
      assert.equal(seen.headers.origin, 'https://idp.example.test');
      // Exactly one User-agent line: a doubled value would make the Client ID unusable.
      assert.equal(
        seen.rawHeaders.filter((_, i) => i % 2 === 0 && seen.rawHeaders[i]!.toLowerCase() === 'user-agent').length,
        1,
      );
      const names = Object.keys(seen.headers).sort();
      assert.deepEqual(names, [
        'accept',
        'connection',
        'content-length',
        'content-type',
        'host',
        'origin',
        'user-agent',
      ]);
    });
  });

  it("forwards the caller's W3C traceparent and tracestate, and only well-formed ones", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await withRelay(service, {}, async (url) => {
      await post(
        `${url}/assertion/options`,
        { username: 'alice#idp.example.test' },
        { traceparent, tracestate: 'vendor=abc' },
      );
      assert.equal(service.seen.at(-1)!.headers.traceparent, traceparent);
      assert.equal(service.seen.at(-1)!.headers.tracestate, 'vendor=abc');
      for (const bad of [
        '00-xyz',
        `ff-${traceparent.slice(3)}`,
        '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      ]) {
        await post(
          `${url}/assertion/options`,
          { username: 'alice#idp.example.test' },
          { traceparent: bad, tracestate: 'a=b' },
        );
        assert.equal(service.seen.at(-1)!.headers.traceparent, undefined, bad);
        assert.equal(service.seen.at(-1)!.headers.tracestate, undefined, 'no tracestate without a traceparent');
      }
    });
  });

  it('uses the configured vendor word', async () => {
    await withRelay(service, { vendor: 'Acme' }, async (url) => {
      await post(`${url}/assertion/options`, { username: 'alice#idp.example.test' });
      assert.equal(service.seen.at(-1)!.headers['user-agent'], 'Acme AppID: demo-client');
    });
  });

  it('passes the service status and envelope through unchanged (failed with its sessionId, 429 with Retry-After)', async () => {
    await withRelay(service, {}, async (url) => {
      const failed = await post(`${url}/assertion/result`, { id: 'x', response: {} });
      assert.equal(failed.status, 400);
      assert.equal(
        failed.text,
        JSON.stringify({ status: 'failed', errorMessage: ['CHALLENGE_NOT_MATCHED', 'x'], sessionId: 's-1' }),
      );
      const limited = await post(`${url}/attestation/result`, { id: 'x', response: {} });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '7');
      assert.deepEqual(limited.json.errorMessage, ['RATE_LIMITED', 'slow down']);
      const options = await post(`${url}/attestation/options`, { username: 'alice#idp.example.test' });
      assert.equal(options.status, 200);
      assert.equal(
        options.text,
        JSON.stringify(ok({ challenge: 'c-att', timeout: 180000, rp: { id: 'idp.example.test' } })),
      );
      assert.equal(options.headers.get('cache-control'), 'no-store');
    });
  });

  it('forwards the browser body as JSON with nothing added in the standard variant', async () => {
    await withRelay(service, {}, async (url) => {
      const body = {
        username: 'alice#idp.example.test',
        displayName: 'Alice',
        authenticatorSelection: { userVerification: 'required' },
        attestation: 'direct',
      };
      await post(`${url}/attestation/options`, body);
      assert.deepEqual(service.seen.at(-1)!.body, body);
    });
  });

  it('refuses a body over the limit with 413 in the envelope, without calling the service', async () => {
    await withRelay(service, { maxBodyBytes: 2048 }, async (url) => {
      const before = service.seen.length;
      const big = await post(`${url}/assertion/options`, { username: 'a'.repeat(5000) });
      assert.equal(big.status, 413);
      assert.deepEqual(big.json, {
        status: 'failed',
        errorMessage: ['PAYLOAD_TOO_LARGE', 'The request body is larger than the relay accepts.'],
        sessionId: '',
      });
      // Without Content-Length (chunked): the limit holds while reading.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${url}/assertion/options`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('{"username":"');
        req.write('b'.repeat(4000));
        req.end('"}');
      });
      assert.equal(chunked, 413);
      assert.equal(service.seen.length, before);
    });
  });

  it('answers bad bodies, methods and paths in the envelope without calling the service', async () => {
    await withRelay(service, {}, async (url) => {
      const before = service.seen.length;
      const notJson = await post(`${url}/assertion/options`, 'username=alice', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      assert.equal(notJson.status, 415);
      assert.equal((notJson.json.errorMessage as string[])[0], 'UNSUPPORTED_MEDIA_TYPE');
      const malformed = await post(`${url}/assertion/options`, '{"username":');
      assert.equal(malformed.status, 400);
      assert.equal((malformed.json.errorMessage as string[])[0], 'MALFORMED_JSON');
      const array = await post(`${url}/assertion/options`, '[1,2]');
      assert.equal((array.json.errorMessage as string[])[0], 'MALFORMED_JSON');
      const get = await fetch(`${url}/assertion/options`, { signal: AbortSignal.timeout(5000) });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      const unknown = await post(`${url}/api/assertion/options`, {});
      assert.equal(unknown.status, 404);
      assert.equal(service.seen.length, before);
    });
  });

  it('survives a request target that is not a URL', async () => {
    await withRelay(service, {}, async (url) => {
      const { port } = new URL(url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: 'http://[::1/attestation/options',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      assert.equal(status, 404);
      assert.equal(
        (await post(`${url}/assertion/options`, { username: 'alice#idp.example.test' })).status,
        200,
        'still serving',
      );
    });
  });

  it('hands paths that are not its own to next() (middleware use)', async () => {
    const relay = createRelay({
      serviceUrl: service.url,
      prefix: '', // the routes at the root (the default is /relay)
      clientId: 'demo-client',
      origin: 'https://idp.example.test',
      mayRegister: allowAll,
    });
    const server = await serve((req, res) => relay.handler(req, res, () => res.end('next')));
    try {
      const reply = await post(`${server.url}/login`, {});
      assert.equal(reply.text, 'next');
    } finally {
      await server.close();
    }
  });

  it('refuses invalid options at creation, naming every problem', () => {
    assert.throws(
      () =>
        createRelay({
          serviceUrl: 'ftp://x',
          clientId: 'has space',
          variant: 'standard',
          origin: 'https://x.test/path',
          mayRegister: 'yes' as never,
        }),
      (error: Error) =>
        ['serviceUrl', 'clientId', 'origin', 'mayRegister'].every((word) => error.message.includes(word)),
    );
    assert.throws(
      () => createRelay({ serviceUrl: service.url, clientId: 'c', mayRegister: allowAll, origin: undefined }),
      /origin/,
    );
  });
});

describe('relay: an unreachable, slow or broken service', () => {
  it('answers 502 RELAY_UPSTREAM_UNREACHABLE when nothing listens', async () => {
    const closed = await startFakeService();
    const url = closed.url;
    await closed.close();
    await withRelay({ url } as FakeService, {}, async (relayUrl) => {
      const reply = await post(`${relayUrl}/assertion/options`, { username: 'alice#idp.example.test' });
      assert.equal(reply.status, 502);
      assert.equal(reply.json.status, 'failed');
      assert.equal((reply.json.errorMessage as string[])[0], 'RELAY_UPSTREAM_UNREACHABLE');
    });
  });

  it('answers 504 RELAY_UPSTREAM_TIMEOUT when the service does not answer in time', async () => {
    const service = await startFakeService();
    service.answer('/api/assertion/options', () => ({ hang: true }));
    try {
      await withRelay(service, { upstreamTimeoutMs: 300 }, async (url) => {
        const reply = await post(`${url}/assertion/options`, { username: 'alice#idp.example.test' });
        assert.equal(reply.status, 504);
        assert.equal((reply.json.errorMessage as string[])[0], 'RELAY_UPSTREAM_TIMEOUT');
      });
    } finally {
      await service.close();
    }
  });

  it('answers 502 RELAY_UPSTREAM_INVALID_RESPONSE when the answer is not the envelope', async () => {
    const service = await startFakeService();
    service.answer('/api/assertion/options', () => ({ status: 502, text: '<html>Bad gateway</html>' }));
    service.answer('/api/assertion/result', () => ({ status: 200, body: { hello: 'world' } }));
    try {
      await withRelay(service, {}, async (url) => {
        for (const path of ['assertion/options', 'assertion/result']) {
          const reply = await post(`${url}/${path}`, { username: 'alice#idp.example.test' });
          assert.equal(reply.status, 502);
          assert.equal((reply.json.errorMessage as string[])[0], 'RELAY_UPSTREAM_INVALID_RESPONSE');
        }
      });
    } finally {
      await service.close();
    }
  });
});

describe('relay: the registration hook (spec point 6)', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/attestation/options', () => ({ body: ok({ challenge: 'c', timeout: 1000 }) }));
  });
  after(() => service.close());

  it('is asked with the username, displayName and the browser request before anything is forwarded', async () => {
    const asked: Array<{ username: string; displayName: string | undefined; cookie: string | undefined }> = [];
    await withRelay(
      service,
      {
        mayRegister: ({ username, displayName, request }) => {
          asked.push({ username, displayName, cookie: request.headers.cookie });
          return request.headers.cookie === 'session=alice';
        },
      },
      async (url) => {
        const before = service.seen.length;
        const refused = await post(`${url}/attestation/options`, {
          username: 'alice#idp.example.test',
          displayName: 'Alice',
        });
        assert.equal(refused.status, 403);
        assert.equal((refused.json.errorMessage as string[])[0], 'REGISTRATION_NOT_ALLOWED');
        assert.equal(service.seen.length, before);
        const allowed = await post(
          `${url}/attestation/options`,
          { username: 'alice#idp.example.test' },
          { cookie: 'session=alice' },
        );
        assert.equal(allowed.status, 200);
        assert.equal(service.seen.length, before + 1);
        assert.equal(service.seen.at(-1)!.headers.cookie, undefined);
      },
    );
    assert.deepEqual(asked, [
      { username: 'alice#idp.example.test', displayName: 'Alice', cookie: undefined },
      { username: 'alice#idp.example.test', displayName: undefined, cookie: 'session=alice' },
    ]);
  });

  it('shows the hook reason, and fails closed when the hook throws', async () => {
    await withRelay(
      service,
      { mayRegister: async () => ({ allowed: false, reason: 'Sign in with your password first.' }) },
      async (url) => {
        const reply = await post(`${url}/attestation/options`, { username: 'bob#idp.example.test' });
        assert.deepEqual(reply.json.errorMessage, ['REGISTRATION_NOT_ALLOWED', 'Sign in with your password first.']);
      },
    );
    await withRelay(
      service,
      {
        mayRegister: () => {
          throw new Error('db down');
        },
      },
      async (url) => {
        const before = service.seen.length;
        const reply = await post(`${url}/attestation/options`, { username: 'bob#idp.example.test' });
        assert.equal(reply.status, 403);
        assert.equal(service.seen.length, before);
      },
    );
  });

  it('is not asked for sign-in', async () => {
    service.answer('/api/assertion/options', () => ({ body: ok({ challenge: 'c2' }) }));
    await withRelay(service, { mayRegister: () => false }, async (url) => {
      const reply = await post(`${url}/assertion/options`, { username: 'bob#idp.example.test' });
      assert.equal(reply.status, 200);
    });
  });
});
