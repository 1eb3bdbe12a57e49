// What the relay serves besides its JSON operations, and its name options: the default base path /relay,
// the browser bundle as passkeys.mjs and passkeys.js, the Passkey Endpoints document, and userDomain.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { createRelay, type RelayOptions } from '../src/index.js';
import { ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

async function withRelay(
  service: FakeService,
  options: Partial<RelayOptions>,
  test: (url: string) => Promise<void>,
): Promise<void> {
  const relay = createRelay({
    serviceUrl: service.url,
    clientId: 'demo-client',
    origin: 'https://idp.example.test',
    mayRegister: () => true,
    ...options,
  });
  const server = await serve(relay.handler);
  try {
    await test(server.url);
  } finally {
    await server.close();
  }
}

describe('relay: files and names', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/attestation/options', () => ({ body: ok({ challenge: 'c-att', timeout: 1000 }) }));
    service.answer('/api/assertion/options', () => ({ body: ok({ challenge: 'c-ass', timeout: 1000 }) }));
  });
  after(() => service.close());

  it('answers under /relay by default, and nowhere else', async () => {
    await withRelay(service, {}, async (url) => {
      assert.equal((await post(`${url}/relay/assertion/options`, { username: 'a#idp.example.test' })).status, 200);
      assert.equal((await post(`${url}/assertion/options`, { username: 'a#idp.example.test' })).status, 404);
    });
  });

  it('serves the browser package as one ES module and one classic script defining the global Passkeys', async () => {
    await withRelay(service, {}, async (url) => {
      const module = await fetch(`${url}/relay/passkeys.mjs`);
      assert.equal(module.status, 200);
      assert.equal(module.headers.get('content-type'), 'text/javascript; charset=utf-8');
      const moduleText = await module.text();
      for (const name of ['register', 'signIn', 'startAutofill', 'listPasskeys', 'deletePasskey', 'defineElements'])
        assert.match(moduleText, new RegExp(`\\b${name}\\b`), name);
      assert.match(moduleText, /export\s*\{/);
      assert.doesNotMatch(moduleText, /\bimport\s*[{*"']/, 'one file: it imports nothing');

      const script = await fetch(`${url}/relay/passkeys.js`);
      assert.equal(script.status, 200);
      const scriptText = await script.text();
      assert.doesNotMatch(scriptText, /\bexport\s*\{/);
      // A classic script: run it in a bare context (no DOM), it defines Passkeys with the calls.
      const context: Record<string, unknown> = {};
      runInNewContext(scriptText, context);
      const passkeys = context.Passkeys as Record<string, unknown>;
      for (const name of ['register', 'signIn', 'startAutofill', 'listPasskeys', 'deletePasskey', 'PasskeyError'])
        assert.equal(typeof passkeys[name], 'function', name);

      // Revalidation: the same ETag answers 304 without a body; HEAD has no body; POST is refused.
      const etag = script.headers.get('etag')!;
      assert.ok(etag);
      const again = await fetch(`${url}/relay/passkeys.js`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      assert.equal((await fetch(`${url}/relay/passkeys.js`, { method: 'HEAD' })).status, 200);
      const posted = await fetch(`${url}/relay/passkeys.mjs`, { method: 'POST', body: '{}' });
      assert.equal(posted.status, 405);
      assert.equal(posted.headers.get('allow'), 'GET, HEAD');
    });
  });

  it('serves /.well-known/passkey-endpoints from passkeyEndpoints (paths resolved against origin)', async () => {
    await withRelay(
      service,
      { passkeyEndpoints: { enroll: '/signup', manage: 'https://idp.example.test/security' } },
      async (url) => {
        const answer = await fetch(`${url}/.well-known/passkey-endpoints`);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.deepEqual(await answer.json(), {
          enroll: 'https://idp.example.test/signup',
          manage: 'https://idp.example.test/security',
        });
      },
    );
    await withRelay(service, {}, async (url) => {
      assert.equal((await fetch(`${url}/.well-known/passkey-endpoints`)).status, 404);
    });
    const base = {
      serviceUrl: service.url,
      clientId: 'c',
      origin: 'https://idp.example.test',
      mayRegister: () => true,
    };
    assert.throws(() => createRelay({ ...base, passkeyEndpoints: { manage: 'http://idp.example.test/x' } }), /https/);
    assert.throws(() => createRelay({ ...base, passkeyEndpoints: {} }), /enroll and\/or manage/);
  });

  it('userDomain: a plain name gets the domain, a full one passes, no name means the sign-in without a name', async () => {
    await withRelay(service, { userDomain: 'idp.example.test' }, async (url) => {
      await post(`${url}/relay/attestation/options`, { username: 'alice', displayName: 'Alice' });
      assert.deepEqual(service.seen.at(-1)!.body, { username: 'alice#idp.example.test', displayName: 'Alice' });
      await post(`${url}/relay/assertion/options`, { username: 'bob#other.example' });
      assert.equal(service.seen.at(-1)!.body.username, 'bob#other.example');
      await post(`${url}/relay/assertion/options`, {});
      assert.equal(service.seen.at(-1)!.body.username, '#idp.example.test');
    });
    // Without userDomain: plain names pass as they are; no name → the origin's host (local: localhost).
    await withRelay(service, {}, async (url) => {
      await post(`${url}/relay/assertion/options`, { username: 'alice' });
      assert.equal(service.seen.at(-1)!.body.username, 'alice');
      await post(`${url}/relay/assertion/options`, {});
      assert.equal(service.seen.at(-1)!.body.username, '#idp.example.test');
    });
    await withRelay(service, { variant: 'local', origin: undefined }, async (url) => {
      await post(`${url}/relay/assertion/options`, {});
      assert.equal(service.seen.at(-1)!.body.username, '#localhost');
    });
    assert.throws(
      () =>
        createRelay({
          serviceUrl: service.url,
          clientId: 'c',
          origin: 'https://a.test',
          mayRegister: () => true,
          userDomain: 'a b',
        }),
      /userDomain/,
    );
  });
});
