// The Express and Fastify adapters: Fastify for real (a dev dependency), Express as the middleware
// contract it uses (req, res, next), with a body that express.json() has already parsed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { expressRelay, fastifyRelay } from '../src/index.js';
import { ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

describe('relay adapters', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/assertion/options', () => ({ body: ok({ challenge: 'c' }) }));
    service.answer('/api/assertion/result', () => ({
      status: 400,
      body: { status: 'failed', errorMessage: ['SESSION_NOT_FOUND', 'gone'], sessionId: '' },
    }));
  });
  after(() => service.close());

  const options = () => ({
    serviceUrl: service.url,
    clientId: 'demo-client',
    prefix: '', // the routes at the root (the default is /relay)
    origin: 'https://idp.example.test',
    mayRegister: () => true,
    maxBodyBytes: 2048,
  });

  it('Express: works after express.json() (pre-parsed body) and passes other paths to next()', async () => {
    const middleware = expressRelay({ ...options(), prefix: '/passkey' });
    const server = await serve(async (req, res) => {
      // What express.json() leaves behind: the stream consumed, the object on req.body.
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      (req as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      middleware(req, res, () => res.end('next'));
    });
    try {
      const reply = await post(
        `${server.url}/passkey/assertion/options`,
        { username: 'alice#idp.example.test' },
        { 'user-agent': 'Mozilla/5.0' },
      );
      assert.equal(reply.status, 200);
      assert.deepEqual(service.seen.at(-1)!.body, { username: 'alice#idp.example.test' });
      assert.equal(service.seen.at(-1)!.headers['user-agent'], 'Vendor AppID: demo-client');
      assert.equal((await post(`${server.url}/other`, {})).text, 'next');
    } finally {
      await server.close();
    }
  });

  it('Fastify: registers the four routes, passes status and envelope through, answers bad bodies in the envelope', async () => {
    const app = Fastify();
    await app.register(fastifyRelay({ ...options(), prefix: '/passkey' }));
    app.get('/', async () => 'home');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const good = await post(
        `${url}/passkey/assertion/options`,
        { username: 'alice#idp.example.test' },
        { cookie: 'a=b', origin: url }, // the page's own origin, by Host; the service gets the configured one
      );
      assert.equal(good.status, 200);
      assert.equal(good.json.challenge, 'c');
      assert.equal(service.seen.at(-1)!.headers.cookie, undefined);
      assert.equal(service.seen.at(-1)!.headers.origin, 'https://idp.example.test');
      const before = service.seen.length;
      const foreign = await post(
        `${url}/passkey/assertion/options`,
        { username: 'alice#idp.example.test' },
        { origin: 'https://evil.example' },
      );
      assert.equal(foreign.status, 403);
      assert.equal((foreign.json.errorMessage as string[])[0], 'CROSS_SITE_REQUEST');
      assert.equal(service.seen.length, before);
      const failed = await post(`${url}/passkey/assertion/result`, { id: 'x' });
      assert.equal(failed.status, 400);
      assert.deepEqual(failed.json.errorMessage, ['SESSION_NOT_FOUND', 'gone']);
      const big = await post(`${url}/passkey/assertion/options`, { username: 'x'.repeat(4000) });
      assert.equal(big.status, 413);
      assert.equal((big.json.errorMessage as string[])[0], 'PAYLOAD_TOO_LARGE');
      const notJson = await post(`${url}/passkey/assertion/options`, 'a=b', { 'content-type': 'text/plain' });
      assert.equal(notJson.status, 415);
      assert.equal((notJson.json.errorMessage as string[])[0], 'UNSUPPORTED_MEDIA_TYPE');
      const malformed = await post(`${url}/passkey/assertion/options`, '{');
      assert.equal((malformed.json.errorMessage as string[])[0], 'MALFORMED_JSON');
      // The rest of the application keeps its own parsers and routes.
      assert.equal(await (await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) })).text(), 'home');
    } finally {
      await app.close();
    }
  });
});
