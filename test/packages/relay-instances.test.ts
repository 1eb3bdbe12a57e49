// Several relay instances in front of the real service (issue 17, the integrator's side): the options call
// through one instance, the result through another (a load balancer without sticky routing), or through
// an instance started after the options call (a restart). Whatever instance answers, `onResult` names the
// user the service's answer names, in both variants, by name and without a name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRelay, MemoryLocalStore, type CeremonyResult, type LocalCredentialStore } from '@passkey-server/relay';
import { CLIENT_ID, DOMAIN, Harness, ORIGIN, VENDOR } from '../support/harness.js';
import { LOCAL_PAGE } from '../ceremonies/local/support.js';
import { listen } from '../support/listen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

type Variant = 'standard' | 'local';

async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

interface Instance {
  readonly url: string;
  readonly results: CeremonyResult[];
  close(): Promise<void>;
}

for (const variant of ['standard', 'local'] as const satisfies readonly Variant[]) {
  describe(`relay: two instances and a restart in front of the real service, ${variant} variant`, () => {
    const harness = new Harness();
    const domain = variant === 'standard' ? DOMAIN : 'localhost';
    // The instances share the store of local blobs, as instances share a database; each has its own
    // memory of the options calls it relayed (which is what a restart or another instance lacks).
    const shared: LocalCredentialStore = new MemoryLocalStore();
    const instances: Instance[] = [];
    let service: { url: string; close(): Promise<void> };
    const authenticator = new SoftAuthenticator({ origin: variant === 'standard' ? ORIGIN : LOCAL_PAGE });

    async function instance(): Promise<Instance> {
      const results: CeremonyResult[] = [];
      const relay = createRelay({
        serviceUrl: service.url,
        clientId: CLIENT_ID,
        prefix: '', // the routes at the root (the default is /relay)
        vendor: VENDOR,
        variant,
        ...(variant === 'standard' ? { origin: ORIGIN } : { localStore: shared }),
        mayRegister: () => true,
        onResult: (result) => void results.push(result),
      });
      const server = await listen(relay.handler);
      const created = { url: server.url, results, close: server.close };
      instances.push(created);
      return created;
    }

    before(async () => {
      service = await listen(harness.app.handler);
    });
    after(async () => {
      for (const relay of instances) await relay.close();
      await service.close();
    });

    it('registers through two instances, then signs in by name through them the other way round', async () => {
      const [a, b] = [await instance(), await instance()];
      const username = `alice#${domain}`;
      const options = await post(`${a.url}/attestation/options`, {
        username,
        displayName: 'Alice',
        authenticatorSelection: { residentKey: 'required' },
      });
      assert.equal(options.status, 'ok', JSON.stringify(options));
      const registered = await post(`${b.url}/attestation/result`, authenticator.register(options));
      assert.equal(registered.status, 'ok', JSON.stringify(registered));
      assert.deepEqual(
        b.results.map((r) => [r.operation, r.ok, r.username]),
        [['attestation', true, username]],
      );
      assert.equal(a.results.length, 0);
      if (variant === 'local')
        assert.equal((await shared.list(username)).length, 1, 'B filed the blob under the owner the service named');

      const signIn = await post(`${b.url}/assertion/options`, { username });
      const signedIn = await post(`${a.url}/assertion/result`, authenticator.authenticate(signIn));
      assert.equal(signedIn.status, 'ok', JSON.stringify(signedIn));
      assert.deepEqual(
        a.results.map((r) => [r.operation, r.ok, r.username]),
        [['assertion', true, username]],
      );
    });

    it('signs in without a name: options through one instance, the result through another', async () => {
      const [a, b] = [await instance(), await instance()];
      const username = `bob#${domain}`;
      const reg = await post(`${a.url}/attestation/options`, {
        username,
        displayName: 'Bob',
        authenticatorSelection: { residentKey: 'required' },
      });
      const made = authenticator.register(reg);
      assert.equal((await post(`${a.url}/attestation/result`, made)).status, 'ok');
      const options = await post(`${a.url}/assertion/options`, { username: `#${domain}` });
      assert.deepEqual(options.allowCredentials, []);
      const answer = await post(
        `${b.url}/assertion/result`,
        authenticator.authenticate(options, { credentialId: made.id }),
      );
      assert.equal(answer.status, 'ok', JSON.stringify(answer));
      assert.equal(answer.username, username);
      assert.equal(answer.credentialId, made.id);
      assert.deepEqual(
        b.results.map((r) => [r.operation, r.ok, r.username, r.credentialId]),
        [['assertion', true, username, made.id]],
      );
    });

    it('a relay restarted between the options call and the result still names the user (by name and without a name)', async () => {
      const before = await instance();
      const username = `carol#${domain}`;
      const reg = await post(`${before.url}/attestation/options`, {
        username,
        displayName: 'Carol',
        authenticatorSelection: { residentKey: 'required' },
      });
      await before.close();
      const restarted = await instance();
      const made = authenticator.register(reg);
      assert.equal((await post(`${restarted.url}/attestation/result`, made)).status, 'ok');
      assert.equal(restarted.results.at(-1)!.username, username);

      for (const name of [username, `#${domain}`]) {
        const first = await instance();
        const options = await post(`${first.url}/assertion/options`, { username: name });
        await first.close();
        const second = await instance();
        const answer = await post(
          `${second.url}/assertion/result`,
          authenticator.authenticate(options, { credentialId: made.id }),
        );
        assert.equal(answer.status, 'ok', `${name}: ${JSON.stringify(answer)}`);
        assert.deepEqual(
          second.results.map((r) => [r.ok, r.username]),
          [[true, username]],
          name,
        );
      }
    });

    it('a failed result names nobody, whichever instance relays it', async () => {
      const [a, b] = [await instance(), await instance()];
      const username = `dave#${domain}`;
      const reg = await post(`${a.url}/attestation/options`, {
        username,
        displayName: 'Dave',
        authenticatorSelection: { residentKey: 'required' },
      });
      const made = authenticator.register(reg);
      assert.equal((await post(`${a.url}/attestation/result`, made)).status, 'ok');
      const options = await post(`${a.url}/assertion/options`, { username: `#${domain}` });
      const answer = await post(
        `${b.url}/assertion/result`,
        authenticator.authenticate(options, { credentialId: made.id, userHandle: null }),
      );
      assert.equal(answer.status, 'failed');
      assert.equal(answer.errorMessage[0], 'USER_HANDLE_MISSING');
      assert.deepEqual(
        b.results.map((r) => [r.ok, r.username]),
        [[false, undefined]],
      );
    });
  });
}
