// End to end: the real service process (compiled src/cli/bin.js `serve`) on SQLite in a temp folder, driven over
// a real socket with the soft authenticator: register, sign in twice, restart the process, sign in again
// (the credential and the secrets survived on disk).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startServe, type ServeProcess } from '../support/cli-process.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const DOMAIN = 'e2e.example.test';
const ORIGIN = `https://${DOMAIN}`;
const CLIENT_ID = 'e2e-client';

function start(configFile: string): Promise<ServeProcess> {
  return startServe(['--config', configFile, '--port', '0', '--no-demo'], {
    cwd: dirname(configFile),
    env: { NODE_ENV: 'test' },
  });
}

async function stop(running: ServeProcess): Promise<void> {
  await running.stop('SIGTERM', 10_000);
}

async function post(
  running: ServeProcess,
  path: string,
  body: unknown,
): Promise<{ status: number; body: any; requestId: string | null }> {
  const res = await fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': `Vendor AppID: ${CLIENT_ID}`, origin: ORIGIN },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') };
}

async function signIn(running: ServeProcess, authenticator: SoftAuthenticator, username: string): Promise<void> {
  const options = await post(running, '/api/assertion/options', { username });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  assert.equal(options.body.allowCredentials.length, 1);
  const result = await post(running, '/api/assertion/result', authenticator.authenticate(options.body));
  assert.equal(result.status, 200, JSON.stringify(result.body));
  assert.equal(result.body.status, 'ok');
  assert.equal(result.body.username, username);
}

describe('the service process end to end (SQLite, real socket, restart)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'passkey-e2e-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      database: 'sqlite:./fido2.db',
      challenges: 'memory',
      local: { enabled: false },
      dataDir: '.',
      applications: [
        { clientId: CLIENT_ID, name: 'E2E IdP', domain: DOMAIN, origins: [ORIGIN], variants: ['standard'] },
      ],
    }),
  );
  const running: ServeProcess[] = [];
  after(async () => {
    await Promise.all(running.map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers, signs in twice, survives a restart, signs in again', async () => {
    const authenticator = new SoftAuthenticator({ origin: ORIGIN, fmt: 'packed' });
    const username = `alice#${DOMAIN}`;

    const first = await start(configFile);
    running.push(first);
    // One line about the runtime, and only on a runtime past its end of life (Node.js 20 since 2026-04-30).
    const eol = first
      .stderr()
      .split('\n')
      .filter((line) => line.includes('past its end of life'));
    const major = Number(process.versions.node.split('.')[0]);
    assert.equal(eol.length, major === 20 ? 1 : 0, first.stderr());
    if (major === 20) assert.ok(eol[0]!.includes(`Node.js ${process.version}`));
    const options = await post(first, '/api/attestation/options', { username, displayName: 'Alice' });
    assert.equal(options.status, 200, JSON.stringify(options.body));
    assert.equal(options.body.rp.id, DOMAIN);
    assert.ok(options.requestId);
    const registered = await post(first, '/api/attestation/result', authenticator.register(options.body));
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    assert.equal(registered.body.status, 'ok');
    assert.equal(registered.body.username, username);
    assert.equal(registered.body.attestationFormat, 'packed');
    await signIn(first, authenticator, username);
    await signIn(first, authenticator, username);

    // A failure over the socket is the envelope too.
    const wrong = await post(first, '/api/assertion/result', { id: 'x' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.errorMessage[0], 'INVALID_REQUEST_BODY');

    await stop(first);
    const second = await start(configFile);
    running.push(second);
    await signIn(second, authenticator, username);
    // The user handle survived too (same secrets file): the options name the same user.
    const again = await post(second, '/api/attestation/options', { username });
    assert.equal(again.body.user.id, options.body.user.id);
    assert.equal(again.body.excludeCredentials.length, 1);
    await stop(second);
  });
});
