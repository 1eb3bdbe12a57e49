// The relay sends its application's relay secret on every call (option `relaySecret`, else the
// PASSKEY_RELAY_SECRET environment variable), in front of the real service over real sockets: a relay with
// the secret registers and signs in; one without gets the service's 401 RELAY_SECRET_MISSING, one with a
// wrong secret 401 RELAY_SECRET_INVALID; a malformed secret is refused when the relay is made.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRelay } from '@passkey-server/relay';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { applicationConfig, CLIENT_ID, DOMAIN, Harness, ORIGIN, VENDOR } from '../support/harness.js';
import { listen } from '../support/listen.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const SECRET = 'prs_relay-package-secret-0123456789abcdefghijklm';

describe('relay: the relay secret on every call, in front of the real service (real sockets)', () => {
  const harness = new Harness({ apps: [applicationConfig({ relaySecrets: [relaySecretHash(SECRET)] })] });
  const seen: (string | undefined)[] = [];
  let service: { url: string; close(): Promise<void> };
  const relays: { url: string; close(): Promise<void> }[] = [];

  async function relayWith(relaySecret: string | undefined): Promise<string> {
    const created = createRelay({
      serviceUrl: service.url,
      clientId: CLIENT_ID,
      prefix: '',
      vendor: VENDOR,
      origin: ORIGIN,
      mayRegister: () => true,
      ...(relaySecret === undefined ? {} : { relaySecret }),
    });
    const relay = await listen(created.handler);
    relays.push(relay);
    return relay.url;
  }

  async function call(base: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, json: await response.json() };
  }

  before(async () => {
    service = await listen((request, response) => {
      seen.push(request.headers.authorization);
      harness.app.handler(request, response);
    });
  });
  after(async () => {
    for (const relay of relays) await relay.close();
    await service.close();
  });

  it('with the option: registers and signs in, the secret on every call', async () => {
    const base = await relayWith(SECRET);
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const options = await call(base, '/attestation/options', { username: `alice#${DOMAIN}` });
    assert.equal(options.json.status, 'ok', JSON.stringify(options.json));
    const registered = await call(base, '/attestation/result', authenticator.register(options.json));
    assert.equal(registered.json.status, 'ok', JSON.stringify(registered.json));
    const request = await call(base, '/assertion/options', { username: `alice#${DOMAIN}` });
    const signedIn = await call(base, '/assertion/result', authenticator.authenticate(request.json));
    assert.equal(signedIn.json.status, 'ok', JSON.stringify(signedIn.json));
    assert.deepEqual(seen.splice(0), Array(4).fill(`Bearer ${SECRET}`));
  });

  it('from PASSKEY_RELAY_SECRET when the option is absent', async () => {
    process.env.PASSKEY_RELAY_SECRET = SECRET;
    let base: string;
    try {
      base = await relayWith(undefined);
    } finally {
      delete process.env.PASSKEY_RELAY_SECRET;
    }
    const options = await call(base, '/assertion/options', { username: `alice#${DOMAIN}` });
    assert.equal(options.json.status, 'ok', JSON.stringify(options.json));
    assert.deepEqual(seen.splice(0), [`Bearer ${SECRET}`]);
  });

  it("without it, or with a wrong one, the service's 401 reaches the page", async () => {
    const none = await call(await relayWith(undefined), '/assertion/options', { username: `alice#${DOMAIN}` });
    assert.equal(none.status, 401);
    assert.equal(none.json.errorMessage[0], 'RELAY_SECRET_MISSING');
    const wrong = await call(await relayWith(`${SECRET}-old`), '/assertion/options', { username: `alice#${DOMAIN}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.errorMessage[0], 'RELAY_SECRET_INVALID');
    assert.deepEqual(seen.splice(0), [undefined, `Bearer ${SECRET}-old`]);
  });

  it('refuses a secret that cannot travel in a Bearer header, without showing it', () => {
    assert.throws(
      () =>
        createRelay({
          serviceUrl: service.url,
          clientId: CLIENT_ID,
          origin: ORIGIN,
          mayRegister: () => true,
          relaySecret: 'has spaces in it',
        }),
      (error: Error) => /relaySecret must be/.test(error.message) && !error.message.includes('has spaces'),
    );
  });
});
