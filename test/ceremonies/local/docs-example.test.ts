// The relay example of docs/local-variant.md is run as written (only the service address and Client ID
// are replaced) against the service on a real socket, so the documented bookkeeping is known to work.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLIENT_ID, VENDOR } from '../../support/harness.js';
import { SoftAuthenticator } from '../../support/soft-authenticator.js';
import { LOCAL_PAGE, LocalRig } from './support.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

type Relay = (path: string, body: unknown, user: string) => Promise<{ status: number; body: any }>;

function exampleSource(serviceUrl: string): string {
  const doc = readFileSync(join(repo, 'docs', 'local-variant.md'), 'utf8');
  const match = /```js\n([\s\S]*?)\n```/.exec(doc);
  assert.ok(match, 'docs/local-variant.md has a js example');
  const source = match[1]!;
  assert.match(source, /const SERVICE = '[^']*';/);
  assert.match(source, /const USER_AGENT = '[^']*';/);
  return source
    .replace(/const SERVICE = '[^']*';/, `const SERVICE = ${JSON.stringify(serviceUrl)};`)
    .replace(/const USER_AGENT = '[^']*';/, `const USER_AGENT = ${JSON.stringify(`${VENDOR} AppID: ${CLIENT_ID}`)};`);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('docs/local-variant.md: the relay example', () => {
  it('registers and signs in through the three steps, keeps the blob from the browser, fills allowCredentials', async () => {
    const rig = new LocalRig();
    const server = createServer(rig.app.handler);
    const dir = mkdtempSync(join(tmpdir(), 'passkey-local-example-'));
    try {
      const url = await listen(server);
      const file = join(dir, 'local-relay.mjs');
      writeFileSync(file, exampleSource(url));
      const { relay } = (await import(pathToFileURL(file).href)) as { relay: Relay };
      const authenticator = new SoftAuthenticator({ origin: LOCAL_PAGE });

      const creation = await relay('attestation/options', { displayName: 'Alice' }, 'alice');
      assert.equal(creation.body.status, 'ok', JSON.stringify(creation.body));
      assert.equal(creation.body.rp.id, 'localhost');
      const credential = authenticator.register(creation.body);
      const registered = await relay('attestation/result', credential, 'alice');
      assert.equal(registered.body.status, 'ok', JSON.stringify(registered.body));
      assert.equal(registered.body.localhost, undefined, 'the blob stays in the relay');
      assert.equal(registered.body.username, 'alice#localhost');
      assert.equal(registered.body.credentialId, credential.id);

      for (let round = 0; round < 2; round += 1) {
        const request = await relay('assertion/options', {}, 'alice');
        assert.equal(request.body.status, 'ok');
        assert.deepEqual(request.body.allowCredentials, [
          { type: 'public-key', id: credential.id, transports: ['internal', 'hybrid'] },
        ]);
        const assertion = authenticator.authenticate(request.body);
        const signedIn = await relay('assertion/result', assertion, 'alice');
        assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
        assert.equal(signedIn.body.status, 'ok');
      }

      // Another user of the IdP presenting Alice's authenticator gets nothing from the relay.
      const other = await relay('assertion/options', {}, 'mallory');
      assert.deepEqual(other.body.allowCredentials, []);
      const stolen = await relay(
        'assertion/result',
        authenticator.authenticate(other.body, { credentialId: credential.id }),
        'mallory',
      );
      assert.equal(stolen.body.status, 'failed');
      assert.deepEqual(rig.store.calls, []);
    } finally {
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
