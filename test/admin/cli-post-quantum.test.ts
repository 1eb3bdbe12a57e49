// `passkey-server admin app post-quantum <clientId>` (issue 25) against a real service: `serve` on a SQLite
// file, passkeys registered over its socket by the software authenticator (ML-DSA and ES256), then the CLI as
// a child process on the same config file while the service runs, as an operator would plan a migration.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { minimalApp } from '../config/support.js';
import { runCliCommand, startServe, type ServeProcess } from '../support/cli-process.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { configDir } from '../cli/support.js';

const ORIGIN = 'https://idp.example.test';
const { dir, file } = configDir({
  local: { enabled: false },
  applications: [minimalApp({ algorithms: [-7, -48, -49] })],
});

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'user-agent': 'Vendor AppID: app-1', origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: await res.json() };
}

/** One passkey of `user` with COSE algorithm `alg`, registered over the service's socket. */
async function register(url: string, user: string, alg: number): Promise<void> {
  const options = await post(url, '/api/attestation/options', { username: `${user}#idp.example.test` });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const credential = new SoftAuthenticator({ origin: ORIGIN }).register(options.body, { alg });
  const result = await post(url, '/api/attestation/result', credential);
  assert.equal(result.status, 200, JSON.stringify(result.body));
}

const admin = (...args: string[]) => runCliCommand(['admin', ...args, '--config', file], { cwd: dir });

describe('admin CLI: app post-quantum, on a running service', () => {
  let served: ServeProcess;
  before(async () => {
    served = await startServe(['--config', file], { cwd: dir });
  });
  after(() => served.stop());

  it('counts the users with an ML-DSA passkey and those passkeys; an unknown application fails', async () => {
    const none = await admin('app', 'post-quantum', 'app-1');
    assert.equal(none.code, 0, none.stderr);
    assert.deepEqual(JSON.parse(none.stdout), { users: 0, credentials: 0 });

    await register(served.url, 'alice', -48);
    await register(served.url, 'alice', -7);
    await register(served.url, 'bob', -7);
    await register(served.url, 'carol', -48);
    await register(served.url, 'carol', -49);

    const counted = await admin('app', 'post-quantum', 'app-1');
    assert.equal(counted.code, 0, counted.stderr);
    // alice (one ML-DSA, one ES256) and carol (two ML-DSA); bob has ES256 only.
    assert.deepEqual(JSON.parse(counted.stdout), { users: 2, credentials: 3 });

    const unknown = await admin('app', 'post-quantum', 'no-such-app');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);
    const wrong = await admin('app', 'post-quantum');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /expected a Client ID/);
    assert.match(wrong.stderr, /app post-quantum <clientId>/);
  });
});
