// The local variant's passkey list, in front of the real service over sockets: the service keeps no
// credential there, so the relay answers /credentials/list and /credentials/delete from its local store,
// with its own credentialsToken (issued with every ok sign-in and a user's first registration, checked by
// the relay). A user lists and deletes their own passkeys only; a deleted one no longer signs in. For both
// stores the relay ships, without and with the integrator's credentialsSession.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createRelay,
  FileLocalStore,
  MemoryLocalStore,
  type CredentialsSession,
  type LocalCredentialStore,
} from '@passkey-server/relay';
import { CLIENT_ID, Harness, VENDOR } from '../support/harness.js';
import { LOCAL_PAGE } from '../ceremonies/local/support.js';
import { listen } from '../support/listen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const dir = mkdtempSync(join(tmpdir(), 'relay-local-own-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const STORES: Record<string, () => LocalCredentialStore> = {
  memory: () => new MemoryLocalStore(),
  file: () => new FileLocalStore(join(dir, `${Math.random().toString(36).slice(2)}.json`)),
};

for (const [name, makeStore] of Object.entries(STORES)) {
  for (const withSession of [false, true]) {
    describe(`relay, local variant: a user's own passkeys from the relay's store (${name} store${withSession ? ', credentialsSession' : ''})`, () => {
      const harness = new Harness();
      const sessions = new Map<string, CredentialsSession>();
      let service: { url: string; close(): Promise<void> };
      let relay: { url: string; close(): Promise<void> };

      async function call(path: string, body: unknown, sid = ''): Promise<{ status: number; json: any }> {
        const response = await fetch(`${relay.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `sid=${sid}` },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: response.status, json: await response.json() };
      }

      before(async () => {
        service = await listen(harness.app.handler);
        const sidOf = (request: { headers: { cookie?: string | undefined } }) =>
          String(request.headers.cookie ?? '').replace('sid=', '');
        relay = await listen(
          createRelay({
            serviceUrl: service.url,
            clientId: CLIENT_ID,
            prefix: '',
            vendor: VENDOR,
            variant: 'local',
            localStore: makeStore(),
            mayRegister: () => true,
            ...(withSession && {
              onResult: ({ ok, username, body, request }) => {
                if (ok && username !== undefined && typeof body.credentialsToken === 'string')
                  sessions.set(sidOf(request), { username, credentialsToken: body.credentialsToken });
              },
              credentialsSession: (request) => sessions.get(sidOf(request)),
            }),
          }).handler,
        );
      });
      after(async () => {
        await relay.close();
        await service.close();
      });

      async function register(authenticator: SoftAuthenticator, user: string, sid: string): Promise<any> {
        const options = await call('/attestation/options', { username: `${user}#localhost` }, sid);
        assert.equal(options.json.status, 'ok', JSON.stringify(options.json));
        const made = authenticator.register(options.json);
        const answer = await call('/attestation/result', made, sid);
        assert.equal(answer.json.status, 'ok', JSON.stringify(answer.json));
        return { ...answer.json, id: made.id };
      }

      async function signIn(authenticator: SoftAuthenticator, user: string, sid: string, credentialId?: string) {
        const options = await call('/assertion/options', { username: `${user}#localhost` }, sid);
        const made = authenticator.authenticate(options.json, credentialId === undefined ? {} : { credentialId });
        return (await call('/assertion/result', made, sid)).json;
      }

      /** What the page sends: its last result's user and token (without a session), else nothing. */
      const own = (answer: { username: string; credentialsToken?: string }) =>
        withSession ? {} : { username: answer.username, credentialsToken: answer.credentialsToken };

      it('lists the passkeys the relay keeps, deletes one after the token checks, and refuses another user', async () => {
        const alice = new SoftAuthenticator({ origin: LOCAL_PAGE });
        const first = await register(alice, 'alice', 'a');
        assert.equal(typeof first.credentialsToken, withSession ? 'undefined' : 'string', 'first passkey: a token');
        const second = await register(alice, 'alice', 'a');
        assert.equal(second.credentialsToken, undefined, 'a further registration proves no sign-in');
        const bob = new SoftAuthenticator({ origin: LOCAL_PAGE });
        const bobs = await register(bob, 'bob', 'b');

        const signedIn = await signIn(alice, 'alice', 'a', first.id);
        assert.equal(signedIn.status, 'ok', JSON.stringify(signedIn));
        if (withSession) assert.equal(signedIn.credentialsToken, undefined, 'the session keeps the token');
        else assert.match(signedIn.credentialsToken, /^rl1\./);

        const listed = await call('/credentials/list', own(signedIn), 'a');
        assert.equal(listed.status, 200, JSON.stringify(listed.json));
        assert.equal(listed.json.username, 'alice#localhost');
        const credentials = listed.json.credentials as any[];
        assert.deepEqual(credentials.map((c) => c.credentialId).sort(), [first.id, second.id].sort());
        for (const credential of credentials) {
          // What the registration's answer said of that passkey.
          const registered = credential.credentialId === first.id ? first : second;
          assert.equal(credential.aaguid, registered.aaguid);
          assert.equal(credential.authenticatorName, registered.authenticatorName ?? null);
          assert.equal(typeof credential.backupEligible, 'boolean');
          assert.ok(!Number.isNaN(Date.parse(credential.createdAt)));
        }
        assert.ok(credentials.find((c) => c.credentialId === first.id).lastUsedAt !== null, 'last used: the sign-in');
        assert.equal(credentials.find((c) => c.credentialId === second.id).lastUsedAt, null);
        assert.deepEqual(listed.json.signals.allAcceptedCredentials.rpId, 'localhost');

        // Another user's token, an altered one, another user's passkey: refused.
        if (!withSession) {
          const asBob = await call('/credentials/list', {
            username: 'alice#localhost',
            credentialsToken: bobs.credentialsToken,
          });
          assert.equal(asBob.status, 403);
          assert.equal(asBob.json.errorMessage[0], 'CREDENTIALS_TOKEN_INVALID');
          const altered = `${signedIn.credentialsToken.slice(0, -2)}AA`;
          const refused = await call('/credentials/list', { username: 'alice#localhost', credentialsToken: altered });
          assert.equal(refused.json.errorMessage[0], 'CREDENTIALS_TOKEN_INVALID');
        } else {
          const nobody = await call('/credentials/list', {}, 'nobody');
          assert.equal(nobody.json.errorMessage[0], 'RELAY_NOT_SIGNED_IN');
        }
        const notHers = await call('/credentials/delete', { ...own(signedIn), credentialId: bobs.id }, 'a');
        assert.equal(notHers.json.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');

        // Rename, kept with the blob by the service's rule; another user's passkey and a bad name refused.
        const renamed = await call(
          '/credentials/rename',
          { ...own(signedIn), credentialId: first.id, nickname: ' Key ' },
          'a',
        );
        assert.equal(renamed.json.nickname, 'Key', JSON.stringify(renamed.json));
        const named = await call('/credentials/list', own(signedIn), 'a');
        assert.equal(
          named.json.credentials.find((c: { credentialId: string }) => c.credentialId === first.id).nickname,
          'Key',
        );
        const blank = await call(
          '/credentials/rename',
          { ...own(signedIn), credentialId: first.id, nickname: '  ' },
          'a',
        );
        assert.equal(blank.json.errorMessage[0], 'INVALID_NICKNAME');
        const bobsName = await call(
          '/credentials/rename',
          { ...own(signedIn), credentialId: bobs.id, nickname: 'x' },
          'a',
        );
        assert.equal(bobsName.json.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
        const cleared = await call(
          '/credentials/rename',
          { ...own(signedIn), credentialId: first.id, nickname: null },
          'a',
        );
        assert.equal(cleared.json.nickname, null, JSON.stringify(cleared.json));

        const deleted = await call('/credentials/delete', { ...own(signedIn), credentialId: second.id }, 'a');
        assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
        assert.equal(deleted.json.credentialId, second.id);
        assert.deepEqual(deleted.json.signals.allAcceptedCredentials.allAcceptedCredentialIds, [first.id]);
        const after = await call('/credentials/list', own(signedIn), 'a');
        assert.deepEqual(
          after.json.credentials.map((c: { credentialId: string }) => c.credentialId),
          [first.id],
        );
        const again = await signIn(alice, 'alice', 'a', second.id);
        assert.equal(again.errorMessage[0], 'LOCAL_CREDENTIAL_UNKNOWN', 'a deleted passkey no longer signs in');
        assert.equal((await signIn(bob, 'bob', 'b', bobs.id)).status, 'ok', "bob's passkey is untouched");
      });
    });
  }
}
