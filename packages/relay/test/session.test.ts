// The relay's default registration rule and its record in the integrator's session, against a fake
// service on real sockets: a `request.session` object per cookie, as express-session gives one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { createRelay, type RelayOptions } from '../src/index.js';
import { ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

const ALICE = 'alice#idp.example.test';

type WithSession = IncomingMessage & { session?: Record<string, unknown> };

/** A relay behind a cookie session (`sid=<name>` picks a session object that outlives the request). */
async function withSessions(
  service: FakeService,
  options: Partial<RelayOptions<WithSession>>,
  test: (url: string, sessions: Map<string, Record<string, unknown>>) => Promise<void>,
): Promise<void> {
  const sessions = new Map<string, Record<string, unknown>>();
  const relay = createRelay<WithSession>({
    serviceUrl: service.url,
    clientId: 'demo-client',
    prefix: '',
    origin: 'https://idp.example.test',
    userDomain: 'idp.example.test',
    ...options,
  });
  const server = await serve((request: WithSession, response) => {
    const sid = /sid=(\w+)/.exec(request.headers.cookie ?? '')?.[1];
    if (sid !== undefined) {
      if (!sessions.has(sid)) sessions.set(sid, {});
      request.session = sessions.get(sid);
    }
    relay.handler(request, response);
  });
  try {
    await test(server.url, sessions);
  } finally {
    await server.close();
  }
}

const errorName = (json: Record<string, unknown>) => (json.errorMessage as string[])[0];

describe('relay: the default registration rule and the session record', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
    // alice has a passkey; any other name has none.
    service.answer('/api/attestation/options', ({ body }) => ({
      body: ok({ challenge: `c-${body.username}`, excludeCredentials: body.username === ALICE ? [{ id: 'k1' }] : [] }),
    }));
    service.answer('/api/assertion/result', () => ({ body: ok({ username: ALICE, credentialsToken: 'tok-alice' }) }));
    service.answer('/api/attestation/result', ({ body }) => ({
      body: ok({
        username: ALICE,
        credentialId: body.id,
        ...(body.id === 'first' ? { credentialsToken: 'tok-2' } : {}),
      }),
    }));
    service.answer('/api/credentials/list', ({ body }) => ({ body: ok({ username: body.username, credentials: [] }) }));
  });
  after(() => service.close());

  it('refuses everybody not signed in, sending nothing to the service, and says why', async () => {
    await withSessions(service, {}, async (url) => {
      const before = service.seen.length;
      for (const [name, cookie] of [
        ['alice', 'sid=s1'],
        ['newcomer', 'sid=s1'],
        ['alice', ''],
      ] as const) {
        const reply = await post(`${url}/attestation/options`, { username: name }, cookie ? { cookie } : {});
        assert.equal(reply.status, 403);
        assert.equal(errorName(reply.json), 'REGISTRATION_NOT_ALLOWED');
        assert.match((reply.json.errorMessage as string[])[1]!, /^Sign in as \w+#idp\.example\.test first/);
      }
      assert.equal(service.seen.length, before);
    });
  });

  it('allowSignUp: a name without a passkey may register; a name with one is refused', async () => {
    const warnings: Record<string, unknown>[] = [];
    const log = { warn: (fields: Record<string, unknown>) => void warnings.push(fields), error: () => undefined };
    await withSessions(service, { allowSignUp: true, log }, async (url) => {
      const fresh = await post(`${url}/attestation/options`, { username: 'newcomer', credentialsToken: 'stolen' });
      assert.equal(fresh.status, 200);
      assert.equal(fresh.json.challenge, 'c-newcomer#idp.example.test');
      assert.equal(service.seen.at(-1)!.body.credentialsToken, undefined, "the browser's token never goes on");
      const taken = await post(`${url}/attestation/options`, { username: 'alice' });
      assert.equal(taken.status, 403);
      assert.deepEqual(taken.json.errorMessage, [
        'REGISTRATION_NOT_ALLOWED',
        `${ALICE} already has a passkey: sign in with it first, then add another one.`,
      ]);
      assert.equal(taken.json.challenge, undefined, 'the challenge never reaches the browser');
    });
    assert.deepEqual(warnings, [{ username: ALICE, signedInUser: null, why: 'has-passkey' }]);
  });

  it('keeps who signed in and the token in the session: the owner adds a passkey, lists them, keeps the token', async () => {
    await withSessions(service, {}, async (url, sessions) => {
      const cookie = { cookie: 'sid=a' };
      const signedIn = await post(`${url}/assertion/result`, { id: 'k1', response: {} }, cookie);
      assert.equal(signedIn.status, 200);
      assert.equal(signedIn.json.username, ALICE);
      assert.equal(signedIn.json.credentialsToken, undefined, 'the browser never sees the token');
      assert.deepEqual(sessions.get('a')!.passkeyRelay, { username: ALICE, credentialsToken: 'tok-alice' });

      const add = await post(`${url}/attestation/options`, { username: 'alice', credentialsToken: 'x' }, cookie);
      assert.equal(add.status, 200);
      assert.equal(service.seen.at(-1)!.body.credentialsToken, 'tok-alice', "the session's token goes along");
      const other = await post(`${url}/attestation/options`, { username: 'bob' }, cookie);
      assert.equal(other.status, 403);

      // Adding a passkey answers no token: the session keeps the sign-in's.
      const added = await post(`${url}/attestation/result`, { id: 'second', response: {} }, cookie);
      assert.equal(added.status, 200);
      assert.deepEqual(sessions.get('a')!.passkeyRelay, { username: ALICE, credentialsToken: 'tok-alice' });
      const list = await post(
        `${url}/credentials/list`,
        { username: 'bob#idp.example.test', credentialsToken: 'y' },
        cookie,
      );
      assert.equal(list.status, 200);
      assert.deepEqual(service.seen.at(-1)!.body, { username: ALICE, credentialsToken: 'tok-alice' });

      // Sign-out: the session goes, and with it the relay's record.
      sessions.delete('a');
      const after = await post(`${url}/credentials/list`, {}, cookie);
      assert.equal(after.status, 401);
      assert.equal(errorName(after.json), 'RELAY_NOT_SIGNED_IN');
      assert.equal((await post(`${url}/attestation/options`, { username: 'alice' }, cookie)).status, 403);
    });
  });

  it('a first registration (sign-up) signs the new user in with its token', async () => {
    await withSessions(service, { allowSignUp: true }, async (url, sessions) => {
      const reply = await post(`${url}/attestation/result`, { id: 'first', response: {} }, { cookie: 'sid=n' });
      assert.equal(reply.json.credentialsToken, undefined);
      assert.deepEqual(sessions.get('n')!.passkeyRelay, { username: ALICE, credentialsToken: 'tok-2' });
    });
  });

  it('signedInUser: your session says who is signed in; a record of someone else is not used', async () => {
    await withSessions(
      service,
      { signedInUser: (request) => request.session?.user as string | undefined },
      async (url, sessions) => {
        const cookie = { cookie: 'sid=p' };
        sessions.set('p', { user: 'alice' }); // signed in with a password: may add a first passkey
        const add = await post(`${url}/attestation/options`, { username: 'alice' }, cookie);
        assert.equal(add.status, 200);
        assert.equal(service.seen.at(-1)!.body.credentialsToken, undefined);
        // A stale record (the integrator signed alice out and bob in without a new session).
        sessions.set('p', { user: 'bob', passkeyRelay: { username: ALICE, credentialsToken: 'tok-alice' } });
        const list = await post(`${url}/credentials/list`, {}, cookie);
        assert.equal(list.status, 401);
        assert.equal((await post(`${url}/attestation/options`, { username: 'alice' }, cookie)).status, 403);
      },
    );
  });

  it('fails closed when the signedInUser hook throws', async () => {
    await withSessions(
      service,
      {
        signedInUser: () => {
          throw new Error('store down');
        },
      },
      async (url) => {
        const reply = await post(`${url}/attestation/options`, { username: 'alice' }, { cookie: 'sid=t' });
        assert.equal(reply.status, 403);
      },
    );
  });
});
