// The local variant's bookkeeping, exactly the spec's three steps, plus what the relay adds around them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createRelay,
  FileLocalStore,
  MemoryLocalStore,
  type CeremonyResult,
  type LocalCredentialStore,
} from '../src/index.js';
import { clientData, ok, post, serve, startFakeService, type FakeService } from './fake-service.js';

const USER = 'u-1#localhost';

async function localRelay(
  service: FakeService,
  store: LocalCredentialStore,
  extra: { onResult?: (r: CeremonyResult) => void } = {},
) {
  const relay = createRelay({
    serviceUrl: service.url,
    clientId: 'demo-client',
    prefix: '', // the routes at the root (the default is /relay)
    variant: 'local',
    mayRegister: () => true,
    localStore: store,
    ...extra,
  });
  return serve(relay.handler);
}

describe('relay: local variant bookkeeping', () => {
  let service: FakeService;
  let counter = 0;
  before(async () => {
    service = await startFakeService();
    service.answer('/api/attestation/options', () => ({
      body: ok({ challenge: `reg-${++counter}`, timeout: 180000 }),
    }));
    service.answer('/api/attestation/result', () => ({
      body: ok({ localhost: `blob-for-${counter}`, username: USER }),
    }));
    service.answer('/api/assertion/options', () => ({
      body: ok({ challenge: `auth-${++counter}`, timeout: 180000, rpId: 'localhost', allowCredentials: [] }),
    }));
    service.answer('/api/assertion/result', () => ({ body: ok({ username: USER }) }));
  });
  after(() => service.close());

  it('step 1: sets extensions.localhost = true on attestation result, creating extensions; sends no origin header', async () => {
    const store = new MemoryLocalStore();
    const relay = await localRelay(service, store);
    try {
      const options = await post(`${relay.url}/attestation/options`, { username: USER });
      const challenge = options.json.challenge as string;
      await post(
        `${relay.url}/attestation/result`,
        {
          id: 'cred-A',
          rawId: 'cred-A',
          type: 'public-key',
          response: { clientDataJSON: clientData(challenge), transports: ['internal'] },
        },
        { origin: relay.url }, // the page's own origin: passed by the relay's same-origin check, never sent on
      );
      const sent = service.seen.at(-1)!;
      assert.deepEqual(sent.body.extensions, { localhost: true });
      assert.equal(sent.headers.origin, undefined);
      assert.equal(sent.headers['user-agent'], 'Vendor AppID: demo-client');

      // Existing extension outputs stay; a browser-sent `localhost` value is overwritten.
      const again = await post(`${relay.url}/attestation/options`, { username: USER });
      await post(`${relay.url}/attestation/result`, {
        id: 'cred-B',
        response: { clientDataJSON: clientData(again.json.challenge as string) },
        extensions: { credProps: { rk: true }, localhost: 'forged' },
      });
      assert.deepEqual(service.seen.at(-1)!.body.extensions, { credProps: { rk: true }, localhost: true });
    } finally {
      await relay.close();
    }
  });

  it('step 2: keeps the returned localhost string per user and credential (with transports)', async () => {
    const store = new MemoryLocalStore();
    const relay = await localRelay(service, store);
    try {
      const options = await post(`${relay.url}/attestation/options`, { username: USER });
      const result = await post(`${relay.url}/attestation/result`, {
        id: 'cred-C',
        response: { clientDataJSON: clientData(options.json.challenge as string), transports: ['usb'] },
      });
      // The browser sees the service's answer, plus the relay's own credentialsToken (the user's first passkey here).
      const { credentialsToken, ...answered } = JSON.parse(result.text) as Record<string, unknown>;
      assert.equal(JSON.stringify(answered), JSON.stringify(ok({ localhost: `blob-for-${counter}`, username: USER })));
      assert.match(String(credentialsToken), /^rl1\./);
      const kept = await store.find(USER, 'cred-C');
      assert.equal(kept?.localhost, `blob-for-${counter}`);
      assert.deepEqual(kept?.transports, ['usb']);
      assert.equal(await store.find('someone-else#localhost', 'cred-C'), undefined);
    } finally {
      await relay.close();
    }
  });

  it('step 3: sends the kept string in extensions.localhost of every assertion result, and lists kept credentials in allowCredentials', async () => {
    const store = new MemoryLocalStore();
    await store.save({
      username: USER,
      credentialId: 'cred-D',
      localhost: 'kept-D',
      transports: ['usb'],
      createdAt: 1,
    });
    const relay = await localRelay(service, store);
    try {
      for (let i = 0; i < 2; i += 1) {
        const options = await post(`${relay.url}/assertion/options`, { username: USER });
        assert.deepEqual(options.json.allowCredentials, [{ type: 'public-key', id: 'cred-D', transports: ['usb'] }]);
        const result = await post(`${relay.url}/assertion/result`, {
          id: 'cred-D',
          response: { clientDataJSON: clientData(options.json.challenge as string, 'webauthn.get') },
          extensions: {},
        });
        assert.equal(result.status, 200);
        assert.deepEqual(service.seen.at(-1)!.body.extensions, { localhost: 'kept-D' });
      }
    } finally {
      await relay.close();
    }
  });

  it('refuses a credential it keeps nothing for, and (a store without findById) a sign-in without its options call, without calling the service', async () => {
    const store = new MemoryLocalStore();
    await store.save({
      username: 'other#localhost',
      credentialId: 'cred-E',
      localhost: 'kept-E',
      transports: [],
      createdAt: 1,
    });
    const relay = await localRelay(service, store);
    try {
      const options = await post(`${relay.url}/assertion/options`, { username: USER });
      // Another user's credential: the blob is filed per user, so it is not found.
      const before = service.seen.length;
      const unknown = await post(`${relay.url}/assertion/result`, {
        id: 'cred-E',
        response: { clientDataJSON: clientData(options.json.challenge as string, 'webauthn.get') },
      });
      assert.equal(unknown.status, 400);
      assert.equal((unknown.json.errorMessage as string[])[0], 'LOCAL_CREDENTIAL_UNKNOWN');
      assert.equal(service.seen.length, before);
    } finally {
      await relay.close();
    }
    const perUser: LocalCredentialStore = {
      save: (c) => store.save(c),
      find: (u, id) => store.find(u, id),
      list: (u) => store.list(u),
    };
    const plain = await localRelay(service, perUser);
    try {
      const before = service.seen.length;
      const orphan = await post(`${plain.url}/assertion/result`, {
        id: 'cred-E',
        response: { clientDataJSON: clientData('never-issued', 'webauthn.get') },
      });
      assert.equal((orphan.json.errorMessage as string[])[0], 'RELAY_CEREMONY_UNKNOWN');
      assert.equal(service.seen.length, before);
    } finally {
      await plain.close();
    }
  });

  it('a sign-in without a user name (#localhost) finds the blob by the credential id the browser chose', async () => {
    const store = new MemoryLocalStore();
    await store.save({
      username: 'other#localhost',
      credentialId: 'cred-G',
      localhost: 'kept-G',
      transports: [],
      createdAt: 1,
    });
    const relay = await localRelay(service, store);
    try {
      const options = await post(`${relay.url}/assertion/options`, { username: '#localhost' });
      assert.deepEqual(options.json.allowCredentials, []);
      const result = await post(`${relay.url}/assertion/result`, {
        id: 'cred-G',
        response: { clientDataJSON: clientData(options.json.challenge as string, 'webauthn.get'), userHandle: 'AAAA' },
      });
      assert.equal(result.status, 200);
      assert.deepEqual(service.seen.at(-1)!.body.extensions, { localhost: 'kept-G' });
    } finally {
      await relay.close();
    }
  });

  it('a restarted relay files the blob under the owner the service names, and finds it by id', async () => {
    const store = new MemoryLocalStore();
    const results: Array<string | undefined> = [];
    const first = await localRelay(service, store);
    const options = await post(`${first.url}/attestation/options`, { username: USER });
    const signIn = await post(`${first.url}/assertion/options`, { username: USER });
    await first.close();
    const second = await localRelay(service, store, { onResult: (r) => void results.push(r.username) });
    try {
      const registered = await post(`${second.url}/attestation/result`, {
        id: 'cred-H',
        response: { clientDataJSON: clientData(options.json.challenge as string) },
      });
      assert.equal(registered.status, 200, registered.text);
      assert.equal((await store.find(USER, 'cred-H'))?.localhost, `blob-for-${counter}`);
      const signedIn = await post(`${second.url}/assertion/result`, {
        id: 'cred-H',
        response: { clientDataJSON: clientData(signIn.json.challenge as string, 'webauthn.get') },
      });
      assert.equal(signedIn.status, 200, signedIn.text);
      assert.deepEqual(service.seen.at(-1)!.body.extensions, { localhost: `blob-for-${counter}` });
      assert.deepEqual(results, [USER, USER]);
    } finally {
      await second.close();
    }
  });

  it("tells onResult who the result was for, from the service's answer", async () => {
    const results: Array<{ operation: string; username: string | undefined; ok: boolean }> = [];
    const store = new MemoryLocalStore();
    const relay = await localRelay(service, store, {
      onResult: (r) => void results.push({ operation: r.operation, username: r.username, ok: r.ok }),
    });
    try {
      const options = await post(`${relay.url}/attestation/options`, { username: USER });
      await post(`${relay.url}/attestation/result`, {
        id: 'cred-F',
        response: { clientDataJSON: clientData(options.json.challenge as string) },
      });
      assert.deepEqual(results, [{ operation: 'attestation', username: USER, ok: true }]);
    } finally {
      await relay.close();
    }
  });
});

describe('relay: FileLocalStore', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('keeps entries across instances and survives concurrent saves', async () => {
    const path = join(dir, 'nested', 'credentials.json');
    const first = new FileLocalStore(path);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        first.save({
          username: `u${i % 2}#localhost`,
          credentialId: `c${i}`,
          localhost: `b${i}`,
          transports: ['internal'],
          createdAt: i,
        }),
      ),
    );
    const second = new FileLocalStore(path);
    assert.equal((await second.list('u0#localhost')).length, 5);
    assert.equal((await second.find('u1#localhost', 'c3'))?.localhost, 'b3');
    assert.equal(await second.find('u0#localhost', 'c3'), undefined);
    await second.save({
      username: 'u1#localhost',
      credentialId: 'c3',
      localhost: 'replaced',
      transports: [],
      createdAt: 99,
    });
    const text = JSON.parse(await readFile(path, 'utf8')) as { credentials: unknown[] };
    assert.equal(text.credentials.length, 10);
    assert.equal((await new FileLocalStore(path).find('u1#localhost', 'c3'))?.localhost, 'replaced');
  });

  it('starts empty when the file does not exist', async () => {
    const store = new FileLocalStore(join(dir, 'absent.json'));
    assert.deepEqual(await store.list('x#localhost'), []);
  });
});
