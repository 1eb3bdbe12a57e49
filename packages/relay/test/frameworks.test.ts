// The relay inside real Express and Fastify apps with their session middleware (express-session,
// @fastify/session), on real sockets, against a fake service: the hooks get the framework's own request,
// typed, with its session; the relay keeps its record there; and no cross-site call reaches an action,
// even behind express.urlencoded() and express.json().
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import session from 'express-session';
import Fastify, { type FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import { expressRelay, fastifyRelay } from '../src/index.js';
import { ok, post, startFakeService, type FakeService, type Reply } from './fake-service.js';

declare module 'express-session' {
  interface SessionData {
    user?: string;
  }
}
declare module 'fastify' {
  interface Session {
    user?: string;
  }
}

const ALICE = 'alice#idp.example.test';
const ORIGIN = 'https://idp.example.test';
const SECRET = 'a-session-secret-of-at-least-32-characters';
const COMMON = { clientId: 'demo-client', prefix: '/relay', origin: ORIGIN, userDomain: 'idp.example.test' };

/** A browser's cookie jar of one site, reduced to what these tests need. */
class Jar {
  #cookies = new Map<string, string>();
  header(): Record<string, string> {
    return this.#cookies.size === 0 ? {} : { cookie: [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }
  take(reply: Reply): Reply {
    for (const line of reply.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return reply;
  }
}

const errorName = (reply: Reply) => (reply.json.errorMessage as string[] | undefined)?.[0];

/** A form post as a browser sends it: urlencoded, with the headers a page on `from` adds. */
async function formPost(url: string, fields: string, headers: Record<string, string>): Promise<Reply> {
  return post(url, fields, { 'content-type': 'application/x-www-form-urlencoded', ...headers });
}

function scriptService(service: FakeService): void {
  service.answer('/api/assertion/result', () => ({ body: ok({ username: ALICE, credentialsToken: 'tok-alice' }) }));
  service.answer('/api/attestation/options', ({ body }) => ({
    body: ok({ challenge: 'c', excludeCredentials: body.username === ALICE ? [{ id: 'k' }] : [] }),
  }));
  service.answer('/api/credentials/list', ({ body }) => ({ body: ok({ username: body.username, credentials: [] }) }));
  service.answer('/api/credentials/delete', () => ({ body: ok({ deleted: true }) }));
}

describe('relay in Express with express-session, behind express.urlencoded() and express.json()', () => {
  let service: FakeService;
  let server: Server;
  let url: string;
  const seenByHooks: string[] = [];

  before(async () => {
    service = await startFakeService();
    scriptService(service);
    const app = express();
    app.use(session({ secret: SECRET, resave: false, saveUninitialized: false, cookie: { httpOnly: true } }));
    app.use(express.urlencoded({ extended: true }));
    app.use(express.json());
    app.post('/password-login', (req, res) => {
      req.session.user = 'carol';
      res.json({ status: 'ok' });
    });
    app.use(
      expressRelay<express.Request>({
        ...COMMON,
        serviceUrl: service.url,
        // Typed as Express's request: req.session of express-session, with this app's SessionData.
        signedInUser: (req) =>
          req.session.user ?? (req.session as { passkeyRelay?: { username: string } }).passkeyRelay?.username,
        onResult: ({ request }) =>
          void seenByHooks.push(`${request.method} ${request.originalUrl} ${request.sessionID !== undefined}`),
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  });

  it('keeps the sign-in in req.session: the owner lists and adds, a stranger is refused; hooks get req', async () => {
    const jar = new Jar();
    const signedIn = jar.take(await post(`${url}/relay/assertion/result`, { id: 'k', response: {} }, jar.header()));
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.json.credentialsToken, undefined);
    assert.deepEqual(seenByHooks, ['POST /relay/assertion/result true']);
    assert.equal((await post(`${url}/relay/credentials/list`, {}, jar.header())).status, 200);
    assert.deepEqual(service.seen.at(-1)!.body, { username: ALICE, credentialsToken: 'tok-alice' });
    assert.equal((await post(`${url}/relay/attestation/options`, { username: 'alice' }, jar.header())).status, 200);
    assert.equal(service.seen.at(-1)!.body.credentialsToken, 'tok-alice');
    const stranger = await post(`${url}/relay/attestation/options`, { username: 'alice' });
    assert.equal(stranger.status, 403);
    assert.equal(errorName(stranger), 'REGISTRATION_NOT_ALLOWED');
  });

  it('signedInUser from req.session: a user signed in with a password adds a first passkey', async () => {
    assert.equal((await post(`${url}/relay/attestation/options`, { username: 'carol' })).status, 403);
    const carol = new Jar();
    carol.take(await post(`${url}/password-login`, {}));
    const reply = await post(`${url}/relay/attestation/options`, { username: 'carol' }, carol.header());
    assert.equal(reply.status, 200);
    assert.equal(service.seen.at(-1)!.body.username, 'carol#idp.example.test');
  });

  it('refuses a cross-site form, whatever parsed it, and sends nothing to the service', async () => {
    const jar = new Jar();
    jar.take(await post(`${url}/relay/assertion/result`, { id: 'k', response: {} }, jar.header()));
    const before = service.seen.length;
    const attacks: [string, string, Record<string, string>, number, string][] = [
      ['credentials/delete', 'credentialId=k', { origin: 'https://evil.example' }, 403, 'CROSS_SITE_REQUEST'],
      ['credentials/delete', 'credentialId=k', { 'sec-fetch-site': 'cross-site' }, 403, 'CROSS_SITE_REQUEST'],
      ['credentials/delete', 'credentialId=k', { 'sec-fetch-site': 'same-site' }, 403, 'CROSS_SITE_REQUEST'],
      ['credentials/delete', 'credentialId=k', { origin: 'null' }, 403, 'CROSS_SITE_REQUEST'],
      // Nested fields become an object under express.urlencoded({extended: true}): a forged sign-in.
      [
        'assertion/result',
        'id=k&type=public-key&response[clientDataJSON]=x&response[authenticatorData]=y',
        { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        403,
        'CROSS_SITE_REQUEST',
      ],
      // No header says where it came from (an old browser): the form's content type is refused.
      ['credentials/delete', 'credentialId=k', {}, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [operation, fields, headers, status, name] of attacks) {
      const reply = await formPost(`${url}/relay/${operation}`, fields, { ...jar.header(), ...headers });
      assert.equal(reply.status, status, `${operation} ${JSON.stringify(headers)}`);
      assert.equal(errorName(reply), name);
    }
    // JSON that express.json() parsed, from another origin, or as text/plain (a "simple" cross-site request).
    const json = await post(
      `${url}/relay/credentials/delete`,
      { credentialId: 'k' },
      { ...jar.header(), origin: 'https://evil.example' },
    );
    assert.equal(json.status, 403);
    const plain = await post(`${url}/relay/credentials/delete`, '{"credentialId":"k"}', {
      ...jar.header(),
      'content-type': 'text/plain',
    });
    assert.equal(plain.status, 415);
    assert.equal(service.seen.length, before, 'nothing reached the service');

    // The page's own calls pass: same-origin fetch metadata, or the page's origin.
    const own: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin' }, { origin: ORIGIN }, { origin: url }];
    for (const headers of own) {
      const reply = await post(
        `${url}/relay/credentials/delete`,
        { credentialId: 'k' },
        { ...jar.header(), ...headers },
      );
      assert.equal(reply.status, 200, JSON.stringify(headers));
    }
    assert.equal(service.seen.length, before + 3);
  });
});

describe('relay in Fastify with @fastify/session', () => {
  let service: FakeService;
  let url: string;
  const app = Fastify();
  const seenByHooks: string[] = [];

  before(async () => {
    service = await startFakeService();
    scriptService(service);
    await app.register(fastifyCookie);
    await app.register(fastifySession, { secret: SECRET, saveUninitialized: false, cookie: { secure: false } });
    app.post('/password-login', async (request) => {
      request.session.user = 'carol';
      return { status: 'ok' };
    });
    await app.register(
      fastifyRelay<FastifyRequest>({
        ...COMMON,
        serviceUrl: service.url,
        // Typed as Fastify's request: request.session of @fastify/session.
        signedInUser: (request) =>
          request.session.user ??
          (request.session.get('passkeyRelay' as never) as { username: string } | undefined)?.username,
        onResult: ({ request }) =>
          void seenByHooks.push(`${request.routeOptions.url} ${request.session.sessionId !== ''}`),
      }),
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app.close();
    await service.close();
  });

  it('keeps the sign-in in request.session: the owner lists and adds, a stranger is refused; hooks get request', async () => {
    const jar = new Jar();
    const signedIn = jar.take(await post(`${url}/relay/assertion/result`, { id: 'k', response: {} }));
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.json.credentialsToken, undefined);
    assert.deepEqual(seenByHooks, ['/relay/assertion/result true']);
    assert.equal((await post(`${url}/relay/credentials/list`, {}, jar.header())).status, 200);
    assert.deepEqual(service.seen.at(-1)!.body, { username: ALICE, credentialsToken: 'tok-alice' });
    assert.equal((await post(`${url}/relay/attestation/options`, { username: 'alice' }, jar.header())).status, 200);
    assert.equal((await post(`${url}/relay/attestation/options`, { username: 'alice' })).status, 403);
    const carol = new Jar();
    carol.take(await post(`${url}/password-login`, {}));
    assert.equal((await post(`${url}/relay/attestation/options`, { username: 'carol' }, carol.header())).status, 200);
  });

  it('refuses a cross-site call and a form', async () => {
    const jar = new Jar();
    jar.take(await post(`${url}/relay/assertion/result`, { id: 'k', response: {} }));
    const before = service.seen.length;
    const foreign = await post(
      `${url}/relay/credentials/delete`,
      { credentialId: 'k' },
      { ...jar.header(), origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 403);
    assert.equal(errorName(foreign), 'CROSS_SITE_REQUEST');
    const form = await formPost(`${url}/relay/credentials/delete`, 'credentialId=k', jar.header());
    assert.equal(form.status, 415);
    assert.equal(service.seen.length, before);
  });
});
