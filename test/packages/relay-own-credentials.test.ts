// The relay in front of the real service, over real sockets: a user signs in through it, the integrator's
// session keeps the credentialsToken that onResult saw (the page never gets it), and the user lists and
// deletes their own passkeys through the relay's /credentials/* paths, never another user's. The signals
// of each answer reach onResult and the page.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRelay, type CeremonyResult, type CredentialsSession } from '@passkey-server/relay';
import { CLIENT_ID, DOMAIN, Harness, ORIGIN, VENDOR } from '../support/harness.js';
import { listen } from '../support/listen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

describe("relay: a signed-in user's own passkeys, in front of the real service (real sockets)", () => {
  const harness = new Harness();
  const results: CeremonyResult[] = [];
  // The integrator's sessions, by a cookie the page sends: what onResult learnt from the service's answer.
  const sessions = new Map<string, CredentialsSession>();
  let service: { url: string; close(): Promise<void> };
  let relay: { url: string; close(): Promise<void> };

  async function call(path: string, body: unknown, sid: string): Promise<{ status: number; json: any }> {
    const response = await fetch(`${relay.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `sid=${sid}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, json: await response.json() };
  }

  /** Registers `user` through the relay with a fresh authenticator; the session `sid` is theirs after it. */
  async function register(user: string, sid: string): Promise<{ authenticator: SoftAuthenticator; id: string }> {
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const options = (await call('/attestation/options', { username: `${user}#${DOMAIN}` }, sid)).json;
    const made = authenticator.register(options);
    const answer = (await call('/attestation/result', made, sid)).json;
    assert.equal(answer.status, 'ok', JSON.stringify(answer));
    return { authenticator, id: made.id };
  }

  before(async () => {
    service = await listen(harness.app.handler);
    const created = createRelay({
      serviceUrl: service.url,
      clientId: CLIENT_ID,
      prefix: '', // the routes at the root (the default is /relay)
      vendor: VENDOR,
      origin: ORIGIN,
      mayRegister: () => true,
      onResult: (result) => {
        results.push(result);
        const sid = String(result.request.headers.cookie ?? '').replace('sid=', '');
        if (result.ok && result.username !== undefined) {
          sessions.set(sid, { username: result.username, credentialsToken: String(result.body.credentialsToken) });
        }
      },
      credentialsSession: (request) => sessions.get(String(request.headers.cookie ?? '').replace('sid=', '')),
    });
    relay = await listen(created.handler);
  });
  after(async () => {
    await relay.close();
    await service.close();
  });

  it("lists and deletes the signed-in user's passkeys, and refuses another user's", async () => {
    const first = await register('alice', 'alice-session');
    const second = await register('alice', 'alice-session');
    const bob = await register('bob', 'bob-session');

    // Sign in as alice: the page gets the signals, not the token; onResult got both.
    const options = (await call('/assertion/options', { username: `alice#${DOMAIN}` }, 'alice-session')).json;
    const signedIn = (await call('/assertion/result', first.authenticator.authenticate(options), 'alice-session')).json;
    assert.equal(signedIn.status, 'ok');
    assert.equal(signedIn.credentialsToken, undefined);
    assert.deepEqual(
      [...signedIn.signals.allAcceptedCredentials.allAcceptedCredentialIds].sort(),
      [first.id, second.id].sort(),
    );
    assert.match(String(results.at(-1)!.body.credentialsToken), /^v1\./);
    assert.deepEqual(results.at(-1)!.signals, signedIn.signals);

    const listed = await call('/credentials/list', {}, 'alice-session');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.json.credentials.map((c: { credentialId: string }) => c.credentialId).sort(),
      [first.id, second.id].sort(),
    );

    // Bob's credential through alice's session: refused as unknown, and it stays.
    const theirs = await call('/credentials/delete', { credentialId: bob.id }, 'alice-session');
    assert.equal(theirs.status, 400);
    assert.equal(theirs.json.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
    assert.ok(await harness.deps.credentials.find(CLIENT_ID, bob.id));
    // What the browser sends as the user is ignored: the session says who is signed in.
    await call(
      '/credentials/delete',
      { username: `bob#${DOMAIN}`, credentialsToken: 'x', credentialId: bob.id },
      'alice-session',
    );
    assert.ok(await harness.deps.credentials.find(CLIENT_ID, bob.id));

    // A rename goes through with the browser's nickname; another user's passkey is refused, unchanged.
    const renamed = await call(
      '/credentials/rename',
      { credentialId: first.id, nickname: ' Laptop ' },
      'alice-session',
    );
    assert.equal(renamed.status, 200, JSON.stringify(renamed.json));
    assert.equal(renamed.json.nickname, 'Laptop');
    const named = await call('/credentials/list', {}, 'alice-session');
    assert.equal(
      named.json.credentials.find((c: { credentialId: string }) => c.credentialId === first.id).nickname,
      'Laptop',
    );
    const tooLong = await call(
      '/credentials/rename',
      { credentialId: first.id, nickname: 'x'.repeat(65) },
      'alice-session',
    );
    assert.equal(tooLong.json.errorMessage[0], 'INVALID_NICKNAME');
    const bobsName = await call('/credentials/rename', { credentialId: bob.id, nickname: 'mine' }, 'alice-session');
    assert.equal(bobsName.json.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
    assert.equal((await harness.deps.credentials.find(CLIENT_ID, bob.id))?.nickname ?? null, null);

    const deleted = await call('/credentials/delete', { credentialId: second.id }, 'alice-session');
    assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
    assert.deepEqual(deleted.json.signals.allAcceptedCredentials.allAcceptedCredentialIds, [first.id]);
    assert.equal(await harness.deps.credentials.find(CLIENT_ID, second.id), undefined);

    // Nobody signed in: the relay refuses before the service is asked.
    const anonymous = await call('/credentials/list', {}, 'no-session');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.json.errorMessage[0], 'RELAY_NOT_SIGNED_IN');
  });
});
