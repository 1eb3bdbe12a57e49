// A user's own passkeys through the relay, the signals handed to onResult, and the related origins
// document, against a fake service on real sockets (node:http and Fastify).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { createRelay, fastifyRelay, type CeremonyResult, type RelayOptions } from '../src/index.js';
import { ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

const SIGNALS = {
  allAcceptedCredentials: { rpId: 'idp.example.test', userId: 'dQ', allAcceptedCredentialIds: ['a1'] },
  currentUserDetails: { rpId: 'idp.example.test', userId: 'dQ', name: 'alice#idp.example.test', displayName: 'Alice' },
};
const base = (service: FakeService): RelayOptions => ({
  serviceUrl: service.url,
  clientId: 'demo-client',
  prefix: '', // the routes at the root (the default is /relay)
  origin: 'https://idp.example.test',
  mayRegister: () => true,
});

async function withRelay(options: RelayOptions, test: (url: string) => Promise<void>): Promise<void> {
  const server = await serve(createRelay(options).handler);
  try {
    await test(server.url);
  } finally {
    await server.close();
  }
}

describe("relay: a user's own passkeys and the signals", () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/credentials/list', () => ({
      body: ok({ username: 'alice#idp.example.test', credentials: [], signals: SIGNALS }),
    }));
    service.answer('/api/credentials/delete', () => ({
      status: 400,
      body: { status: 'failed', errorMessage: ['CREDENTIAL_ID_NOT_FOUND', 'not hers'], sessionId: '' },
    }));
    service.answer('/api/assertion/result', () => ({
      body: ok({
        username: 'alice#idp.example.test',
        credentialId: 'a1',
        credentialsToken: 'v1.tok.mac',
        signals: SIGNALS,
      }),
    }));
    service.answer('/api/attestation/result', () => ({
      status: 400,
      body: {
        status: 'failed',
        errorMessage: ['CREDENTIAL_ID_NOT_FOUND', 'x'],
        sessionId: '',
        signals: { unknownCredential: { rpId: 'idp.example.test', credentialId: 'zz' } },
      },
    }));
  });
  after(() => service.close());

  it("without credentialsSession: forwards the browser's body to /api/credentials/*, answers as the service did", async () => {
    await withRelay({ ...base(service), prefix: '/passkey' }, async (url) => {
      const list = await post(`${url}/passkey/credentials/list`, {
        username: 'alice#idp.example.test',
        credentialsToken: 't',
      });
      assert.equal(list.status, 200);
      assert.deepEqual(list.json.signals, SIGNALS);
      assert.equal(service.seen.at(-1)!.path, '/api/credentials/list');
      assert.deepEqual(service.seen.at(-1)!.body, { username: 'alice#idp.example.test', credentialsToken: 't' });
      assert.equal(service.seen.at(-1)!.headers['user-agent'], 'Vendor AppID: demo-client');
      assert.equal(service.seen.at(-1)!.headers.origin, 'https://idp.example.test');
      const refused = await post(`${url}/passkey/credentials/delete`, {
        username: 'alice#idp.example.test',
        credentialsToken: 't',
        credentialId: 'b1',
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.json.errorMessage, ['CREDENTIAL_ID_NOT_FOUND', 'not hers']);
      assert.equal(service.seen.at(-1)!.path, '/api/credentials/delete');
    });
  });

  it('with credentialsSession: the user and token come from the session, never from the browser; the browser never sees the token', async () => {
    const sessions = new Map<string, { username: string; credentialsToken: string }>();
    const results: CeremonyResult[] = [];
    await withRelay(
      {
        ...base(service),
        onResult: (result) => {
          results.push(result);
          if (result.ok)
            sessions.set('s1', { username: result.username!, credentialsToken: String(result.body.credentialsToken) });
        },
        credentialsSession: (request) => sessions.get(String(request.headers.cookie ?? '').replace('sid=', '')),
      },
      async (url) => {
        const notSignedIn = await post(
          `${url}/credentials/list`,
          { username: 'alice#idp.example.test', credentialsToken: 'forged' },
          { cookie: 'sid=s1' },
        );
        assert.equal(notSignedIn.status, 401);
        assert.equal((notSignedIn.json.errorMessage as string[])[0], 'RELAY_NOT_SIGNED_IN');
        const signedIn = await post(`${url}/assertion/result`, { id: 'a1', response: {} }, { cookie: 'sid=s1' });
        assert.equal(signedIn.json.status, 'ok');
        assert.equal(signedIn.json.credentialsToken, undefined);
        assert.deepEqual(signedIn.json.signals, SIGNALS);
        assert.deepEqual(results.at(-1)!.signals, SIGNALS);
        assert.equal(results.at(-1)!.body.credentialsToken, 'v1.tok.mac');
        await post(
          `${url}/credentials/delete`,
          { username: 'mallory#idp.example.test', credentialsToken: 'forged', credentialId: 'b1' },
          { cookie: 'sid=s1' },
        );
        assert.deepEqual(service.seen.at(-1)!.body, {
          username: 'alice#idp.example.test',
          credentialsToken: 'v1.tok.mac',
          credentialId: 'b1',
        });
        await post(`${url}/credentials/list`, { username: 'mallory#idp.example.test' }, { cookie: 'sid=s1' });
        assert.deepEqual(service.seen.at(-1)!.body, {
          username: 'alice#idp.example.test',
          credentialsToken: 'v1.tok.mac',
        });
      },
    );
  });

  it('a credentialsSession hook that throws has signed nobody in (fail closed)', async () => {
    await withRelay(
      {
        ...base(service),
        credentialsSession: () => {
          throw new Error('session store down');
        },
      },
      async (url) => {
        const before = service.seen.length;
        const reply = await post(`${url}/credentials/list`, {});
        assert.equal(reply.status, 401);
        assert.equal((reply.json.errorMessage as string[])[0], 'RELAY_NOT_SIGNED_IN');
        assert.equal(service.seen.length, before);
      },
    );
  });

  it("hands a failure's signals.unknownCredential to onResult", async () => {
    const results: CeremonyResult[] = [];
    await withRelay(
      {
        ...base(service),
        onResult: (result) => {
          results.push(result);
        },
      },
      async (url) => {
        await post(`${url}/attestation/result`, { id: 'zz', response: {} });
        assert.equal(results.at(-1)!.ok, false);
        assert.deepEqual(results.at(-1)!.signals, {
          unknownCredential: { rpId: 'idp.example.test', credentialId: 'zz' },
        });
      },
    );
  });
});

describe('relay: /.well-known/webauthn (WebAuthn L3 related origins)', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());
  const ORIGINS = ['https://idp.example.com', 'https://login.example.org:8443'];

  it('node:http: GET and HEAD answer {"origins": [...]}; other methods 405; nothing is forwarded', async () => {
    await withRelay({ ...base(service), relatedOrigins: ORIGINS }, async (url) => {
      const got = await fetch(`${url}/.well-known/webauthn`, { signal: AbortSignal.timeout(5000) });
      assert.equal(got.status, 200);
      assert.match(got.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await got.json(), { origins: ORIGINS });
      const head = await fetch(`${url}/.well-known/webauthn`, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
      const posted = await fetch(`${url}/.well-known/webauthn`, {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(posted.status, 405);
      assert.equal(posted.headers.get('allow'), 'GET, HEAD');
      assert.equal(service.seen.length, 0);
    });
  });

  it("without relatedOrigins the path is not the relay's (404, or next() in Express)", async () => {
    await withRelay(base(service), async (url) => {
      assert.equal((await fetch(`${url}/.well-known/webauthn`, { signal: AbortSignal.timeout(5000) })).status, 404);
    });
  });

  it('refuses, at creation, related origins that are not exactly https origins', () => {
    assert.throws(
      () => createRelay({ ...base(service), relatedOrigins: ['http://idp.example.com'] }),
      /relatedOrigins/,
    );
    assert.throws(
      () => createRelay({ ...base(service), relatedOrigins: ['https://idp.example.com/path'] }),
      /relatedOrigins/,
    );
    assert.throws(() => createRelay({ ...base(service), relatedOrigins: [] }), /relatedOrigins/);
  });

  it('Fastify: the document and the two credentials routes are registered', async () => {
    service.answer('/api/credentials/list', () => ({
      body: ok({ username: 'alice#idp.example.test', credentials: [] }),
    }));
    const app = Fastify();
    await app.register(fastifyRelay({ ...base(service), relatedOrigins: ORIGINS, prefix: '/passkey' }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const got = await fetch(`${url}/.well-known/webauthn`, { signal: AbortSignal.timeout(5000) });
      assert.deepEqual(await got.json(), { origins: ORIGINS });
      const list = await post(`${url}/passkey/credentials/list`, {
        username: 'alice#idp.example.test',
        credentialsToken: 't',
      });
      assert.equal(list.status, 200);
      assert.equal(service.seen.at(-1)!.path, '/api/credentials/list');
    } finally {
      await app.close();
    }
  });
});
