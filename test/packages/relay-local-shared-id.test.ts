// Issue 23 (local variant), the relay's side, in front of the real service over sockets: another user who
// registers a credential id someone already has (an authenticator can claim any id) neither replaces nor
// shadows the first user's kept blob, so the first user still signs in without a name; the newcomer signs
// in with their own blob. For both stores the relay ships (memory and a JSON file). Issue 33: registering
// a user's credential id under that user's own name neither replaces their blob nor earns a credentialsToken
// for their account, whether the service still remembers the id or only the relay does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRelay, FileLocalStore, MemoryLocalStore, type LocalCredentialStore } from '@passkey-server/relay';
import { CLIENT_ID, Harness, VENDOR } from '../support/harness.js';
import { LOCAL_CREDENTIAL_LIFETIME_MS } from '../../src/ceremonies/attestation-result.js';
import { LOCAL_PAGE } from '../ceremonies/local/support.js';
import { listen } from '../support/listen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

const dir = mkdtempSync(join(tmpdir(), 'relay-shared-id-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const STORES: Record<string, () => LocalCredentialStore> = {
  memory: () => new MemoryLocalStore(),
  file: () => new FileLocalStore(join(dir, `${Math.random().toString(36).slice(2)}.json`)),
};

for (const [name, makeStore] of Object.entries(STORES)) {
  describe(`relay, local variant: a credential id registered by two users (${name} store)`, () => {
    const harness = new Harness();
    let service: { url: string; close(): Promise<void> };
    let relay: { url: string; close(): Promise<void> };
    before(async () => {
      service = await listen(harness.app.handler);
      relay = await listen(
        createRelay({
          serviceUrl: service.url,
          clientId: CLIENT_ID,
          prefix: '',
          vendor: VENDOR,
          variant: 'local',
          localStore: makeStore(),
          mayRegister: () => true,
        }).handler,
      );
    });
    after(async () => {
      await relay.close();
      await service.close();
    });

    async function register(authenticator: SoftAuthenticator, user: string, credentialId?: Buffer): Promise<string> {
      const options = await post(`${relay.url}/attestation/options`, {
        username: `${user}#localhost`,
        authenticatorSelection: { residentKey: 'required' },
      });
      assert.equal(options.status, 'ok', JSON.stringify(options));
      const made = authenticator.register(options, credentialId ? { credentialId } : {});
      const registered = await post(`${relay.url}/attestation/result`, made);
      assert.equal(registered.status, 'ok', JSON.stringify(registered));
      return made.id as string;
    }

    async function signInWithoutName(authenticator: SoftAuthenticator, credentialId: string): Promise<any> {
      const options = await post(`${relay.url}/assertion/options`, { username: '#localhost' });
      assert.equal(options.status, 'ok', JSON.stringify(options));
      return post(`${relay.url}/assertion/result`, authenticator.authenticate(options, { credentialId }));
    }

    async function registerOver(authenticator: SoftAuthenticator, user: string, credentialId: string): Promise<any> {
      const options = await post(`${relay.url}/attestation/options`, { username: `${user}#localhost` });
      assert.equal(options.status, 'ok', JSON.stringify(options));
      const made = authenticator.register(options, { credentialId: Buffer.from(credentialId, 'base64url') });
      return post(`${relay.url}/attestation/result`, made);
    }

    it("a registration of a user's own credential id under their name replaces nothing, earns no token", async () => {
      const erin = new SoftAuthenticator({ origin: LOCAL_PAGE });
      const id = await register(erin, 'erin');
      const mallory = new SoftAuthenticator({ origin: LOCAL_PAGE });
      // The service still remembers erin's id: it refuses the registration itself (and audits it).
      const early = await registerOver(mallory, 'erin', id);
      assert.equal(early.status, 'failed', JSON.stringify(early));
      assert.equal(early.errorMessage[0], 'DUPLICATED_CREDENTIAL_ID');
      assert.equal(early.credentialsToken, undefined);
      // Once the service forgot it (its memory of local ids lasts 30 days), the relay's store still refuses.
      harness.clock.advance(LOCAL_CREDENTIAL_LIFETIME_MS + 1000);
      const late = await registerOver(mallory, 'erin', id);
      assert.equal(late.status, 'failed', JSON.stringify(late));
      assert.deepEqual(late.errorMessage[0], 'DUPLICATED_CREDENTIAL_ID');
      assert.equal(late.credentialsToken, undefined);
      // Erin's blob is the one kept: she signs in with her passkey, by name and without one.
      const byName = await post(`${relay.url}/assertion/options`, { username: 'erin#localhost' });
      const result = await post(`${relay.url}/assertion/result`, erin.authenticate(byName, { credentialId: id }));
      assert.equal(result.status, 'ok', JSON.stringify(result));
      assert.equal((await signInWithoutName(erin, id)).username, 'erin#localhost');
      const asMallory = await signInWithoutName(mallory, id);
      assert.equal(asMallory.status, 'failed', JSON.stringify(asMallory));
    });

    it("the first user's blob is neither replaced nor shadowed; each user signs in with their own", async () => {
      const alice = new SoftAuthenticator({ origin: LOCAL_PAGE });
      const id = await register(alice, 'alice');
      const mallory = new SoftAuthenticator({ origin: LOCAL_PAGE });
      await register(mallory, 'mallory', Buffer.from(id, 'base64url'));

      const asAlice = await signInWithoutName(alice, id);
      assert.equal(asAlice.status, 'ok', JSON.stringify(asAlice));
      assert.equal(asAlice.username, 'alice#localhost');
      const asMallory = await signInWithoutName(mallory, id);
      assert.equal(asMallory.status, 'ok', JSON.stringify(asMallory));
      assert.equal(asMallory.username, 'mallory#localhost');
      // By name, each user's own blob too.
      const byName = await post(`${relay.url}/assertion/options`, { username: 'alice#localhost' });
      const result = await post(`${relay.url}/assertion/result`, alice.authenticate(byName, { credentialId: id }));
      assert.equal(result.status, 'ok', JSON.stringify(result));
    });
  });
}
