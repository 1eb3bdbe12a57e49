// Proof in a real browser: headless Debian Chromium drives the demo page's own buttons, through the relay,
// against the real service process, with CDP virtual authenticators (a platform CTAP2 one and a U2F key):
// registration and sign-in by name in both variants, refusals, development hostnames. Sign-in without a
// name, autofill and the upgrade are in usernameless.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGLISH_SENTENCES } from '@passkey-server/browser';
import { startDemo } from '@passkey-server/demo';
import { attestationFormatOf, screenshot, signCountOf, type AuthenticatorKind } from './support.js';
import { capture, CLIENT_ID, click, DOMAIN, fill, open, startDemoWorld, type DemoWorld } from './demo-world.js';

/** Runs in the page before its scripts: makes it look like a browser without the WebAuthn JSON methods. */
function withoutNativeJsonHelpers(): void {
  const constructor = PublicKeyCredential as unknown as Record<string, unknown>;
  delete constructor.parseCreationOptionsFromJSON;
  delete constructor.parseRequestOptionsFromJSON;
  delete (PublicKeyCredential.prototype as unknown as Record<string, unknown>).toJSON;
}

describe('browser: the demo page through the relay, in Chromium', { timeout: 110_000 }, () => {
  let world: DemoWorld;
  let demoPort: number;
  const tab = (kind: AuthenticatorKind | null) => world.tab(kind);

  before(async () => {
    world = await startDemoWorld();
    demoPort = world.demoPort;
  });
  after(() => world?.close());

  it('serves both variants and prints their addresses', () => {
    assert.deepEqual(world.demo.urls.slice(0, 2), [`https://${DOMAIN}:${demoPort}/`, `https://localhost:${demoPort}/`]);
  });

  // First, before this world registers any security key: an unknown user's stand-in takes the shape (id length,
  // transports) of the application's own credentials (src/ceremonies/fake-credential.ts), so once roaming keys
  // are registered it may name `usb`, and the browser then waits for that key until the ceremony's timeout, as
  // it would for a real user whose key is not plugged in. Here the application has no credential yet.
  it('tells a user who signs in without a passkey on this device what happened (both variants)', async () => {
    for (const url of [`https://${DOMAIN}:${demoPort}/bench.html`, `https://localhost:${demoPort}/bench.html`]) {
      const { page } = await tab('platform');
      await open(page, url);
      await fill(page, { user: 'never-registered', kind: 'platform' });
      assert.deepEqual(await click(page, '#sign-in'), {
        kind: 'error',
        text: 'Not signed in: the request was cancelled, timed out, or this device holds no passkey for this account.',
      });
      assert.equal(await page.isVisible('#signed-in'), false);
    }
  });

  // `native: false` removes the browser's parse…FromJSON/toJSON so the helper's own conversions run.
  const cases: Array<{
    variant: 'standard' | 'local';
    kind: AuthenticatorKind;
    attestation: 'none' | 'direct';
    format: string;
    native: boolean;
  }> = [
    { variant: 'standard', kind: 'platform', attestation: 'direct', format: 'packed', native: true },
    { variant: 'standard', kind: 'roaming', attestation: 'direct', format: 'fido-u2f', native: false },
    { variant: 'local', kind: 'platform', attestation: 'none', format: 'none', native: false },
    { variant: 'local', kind: 'roaming', attestation: 'none', format: 'none', native: true },
  ];

  for (const { variant, kind, attestation, format, native } of cases) {
    const helper = native ? 'native JSON helpers' : "the helper's own JSON conversions";
    it(`${variant} variant, ${kind} authenticator (${helper}): registers (attestation ${attestation}, ${format}), signs in twice with the authenticator's counters, refuses a replay`, async () => {
      const opened = await tab(kind);
      const { page } = opened;
      if (!native) await page.addInitScript(withoutNativeJsonHelpers);
      const captured = capture(page);
      const url =
        variant === 'standard'
          ? `https://${DOMAIN}:${demoPort}/bench.html`
          : `https://localhost:${demoPort}/bench.html`;
      const user = `${kind}-${variant}`;
      const username = `${user}#${variant === 'standard' ? DOMAIN : 'localhost'}`;
      await open(page, url);
      assert.equal(await page.textContent('#variant'), variant);
      assert.equal(
        await page.evaluate(
          () =>
            typeof PublicKeyCredential.prototype.toJSON +
            typeof (PublicKeyCredential as any).parseRequestOptionsFromJSON,
        ),
        native ? 'functionfunction' : 'undefinedundefined',
      );
      await fill(page, { user, kind, attestation });

      const registered = await click(page, '#register');
      assert.deepEqual(registered, {
        kind: 'ok',
        text: `Passkey registered for ${username}. You can sign in with it now.`,
      });
      assert.equal(attestationFormatOf(captured.attestations[0]!.response.attestationObject), format);
      const [credential] = await opened.credentials();
      assert.ok(credential, 'the authenticator holds the new credential');
      // A discoverable credential names its RP ID; a U2F key's (non-discoverable) one does not.
      if (kind === 'platform') assert.equal(credential.rpId, variant === 'standard' ? DOMAIN : 'localhost');
      assert.equal(Buffer.from(credential.credentialId, 'base64').toString('base64url'), captured.attestations[0]!.id);

      const counters: number[] = [];
      for (let round = 1; round <= 2; round += 1) {
        const signedIn = await click(page, '#sign-in');
        assert.deepEqual(signedIn, { kind: 'ok', text: `Signed in as ${username}.` });
        const sent = signCountOf(captured.assertions.at(-1)!.response.authenticatorData);
        const [after] = await opened.credentials();
        assert.equal(sent, after!.signCount, `round ${round}: the counter sent is the authenticator's own`);
        counters.push(sent);
      }
      assert.ok(counters[0]! > 0 && counters[1]! > counters[0]!, `counters increase: ${counters.join(', ')}`);
      assert.equal(await page.isVisible('#signed-in'), true);
      assert.equal(await page.textContent('#signed-in-user'), username);
      await screenshot(page, `${variant}-${kind}-signed-in`);

      // Replay the last assertion: through the relay (as a browser would), and straight to the service.
      const replayed = captured.assertions.at(-1)!;
      const viaRelay = await page.evaluate(async (body) => {
        const response = await fetch('/relay/assertion/result', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      }, replayed);
      assert.equal(viaRelay.body.status, 'failed');
      assert.equal(viaRelay.status, 400);
      const direct = await fetch(`${world.service.url}/api/assertion/result`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `Vendor AppID: ${CLIENT_ID}`,
          ...(variant === 'standard' ? { origin: `https://${DOMAIN}:${demoPort}` } : {}),
        },
        body: JSON.stringify(
          variant === 'standard'
            ? replayed
            : {
                ...replayed,
                extensions: { ...replayed.extensions, localhost: captured.attestationAnswers[0]!.localhost },
              },
        ),
        signal: AbortSignal.timeout(10_000),
      });
      const directBody = (await direct.json()) as { status: string; errorMessage: string[] };
      assert.equal(directBody.status, 'failed');
      assert.equal(directBody.errorMessage[0], 'SESSION_ALREADY_REVOKED');
    });
  }

  it('tells a user who cancels (no authenticator present) what happened', async () => {
    const { page } = await tab(null);
    await open(page, `https://localhost:${demoPort}/bench.html`);
    await fill(page, { user: 'nobody', kind: 'platform' });
    await page.evaluate(() => void (document.getElementById('message')!.dataset.kind = ''));
    await page.click('#register');
    await page.waitForSelector('#cancel', { state: 'visible' });
    assert.equal(await page.textContent('#message'), 'Waiting for your authenticator…');
    await page.click('#cancel');
    await page.waitForFunction(() => document.getElementById('message')!.dataset.kind === 'error');
    assert.equal(await page.textContent('#message'), 'Cancelled.');
    assert.equal(await page.isVisible('#signed-in'), false);
  });

  it('local variant on a development hostname: the browser fetches the related-origins document, then registers, signs in and out', async () => {
    const opened = await tab('platform');
    const { page } = opened;
    const response = await open(page, `https://app.test:${demoPort}/bench.html`);
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    assert.equal(await page.textContent('#variant'), 'local');
    await fill(page, { user: 'dev-host', kind: 'platform' });
    assert.equal((await click(page, '#register')).kind, 'ok');
    assert.deepEqual(await click(page, '#sign-in'), { kind: 'ok', text: 'Signed in as dev-host#localhost.' });
    await page.click('#sign-out');
    await page.waitForSelector('#signed-in', { state: 'hidden' });
    assert.equal(await page.textContent('#message'), 'Signed out.');
  });

  it('an origin the application does not list: the browser signs, the service refuses, the page says why', async () => {
    const opened = await tab('platform');
    const { page } = opened;
    await open(page, `https://unlisted.test:${demoPort}/bench.html`);
    await fill(page, { user: 'stranger', kind: 'platform' });
    const refused = await click(page, '#register');
    assert.equal(refused.kind, 'error');
    assert.equal(refused.text, ENGLISH_SENTENCES.pageAddress);
    assert.match((await page.textContent('#message-detail')) ?? '', /^ORIGIN_NOT_MATCHED: /);
    assert.equal((await opened.credentials()).length, 1, "the authenticator did sign: the refusal is the service's");
  });

  it('standard variant on an origin the application does not list: refused before any authenticator is asked, as a configuration error', async () => {
    const other = await startDemo({
      serviceUrl: world.service.url,
      clientId: CLIENT_ID,
      vendor: 'Vendor',
      host: '127.0.0.1',
      port: 0,
      dataDir: world.dir,
      standardDomain: DOMAIN,
    });
    try {
      const opened = await tab('platform');
      await open(opened.page, `${other.urls[0]!}bench.html`);
      await fill(opened.page, { user: 'elsewhere', kind: 'platform' });
      const refused = await click(opened.page, '#register');
      assert.equal(refused.kind, 'error');
      // The relay sends the origin it was configured with: a configuration error, not the user's mistake.
      assert.equal(refused.text, ENGLISH_SENTENCES.siteSetup);
      assert.match((await opened.page.textContent('#message-detail')) ?? '', /^ORIGIN_NOT_ALLOWED: /);
      assert.equal((await opened.credentials()).length, 0);
    } finally {
      await other.close();
    }
  });

  it("a second passkey for an existing account needs that account signed in (the demo's registration rule)", async () => {
    const first = await tab('platform');
    await open(first.page, `https://${DOMAIN}:${demoPort}/bench.html`);
    await fill(first.page, { user: 'owner', kind: 'platform' });
    assert.equal((await click(first.page, '#register')).kind, 'ok');
    const intruder = await tab('roaming');
    await open(intruder.page, `https://${DOMAIN}:${demoPort}/bench.html`);
    await fill(intruder.page, { user: 'owner', kind: 'roaming' });
    const refused = await click(intruder.page, '#register');
    assert.equal(refused.kind, 'error');
    assert.equal(refused.text, ENGLISH_SENTENCES.registrationRefused);
    assert.match(
      (await intruder.page.textContent('#message-detail')) ?? '',
      /^REGISTRATION_NOT_ALLOWED: owner#demo\.localhost already has a passkey/,
    );
    assert.equal((await intruder.credentials()).length, 0);
    // Signed in as the owner, adding another passkey is allowed.
    assert.equal((await click(first.page, '#sign-in')).kind, 'ok');
    await first.cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'u2f', transport: 'usb' } as never,
    });
    await fill(first.page, { user: 'owner', kind: 'roaming' });
    assert.equal((await click(first.page, '#register')).kind, 'ok');
  });
});
