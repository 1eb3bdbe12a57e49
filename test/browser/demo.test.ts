// Proof in a real browser: headless Debian Chromium drives the demo page's own buttons, through the relay,
// against the real service process, with CDP virtual authenticators (a platform CTAP2 one and a U2F key).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { ENGLISH_SENTENCES } from '@passkey-server/browser';
import { startDemo, type RunningDemo } from '../../src/demo/index.js';
import {
  attestationFormatOf, freePort, launchChromium, openTab, screenshot, signCountOf, startServiceProcess,
  type AuthenticatorKind, type BrowserTab, type ServiceProcess,
} from './support.js';

const CLIENT_ID = 'demo-client';
const DOMAIN = 'demo.localhost';

interface Captured {
  assertions: Array<Record<string, any>>;
  attestations: Array<Record<string, any>>;
  attestationAnswers: Array<Record<string, any>>;
}

/** Records what the page sends to (and gets from) the relay's result endpoints. */
function capture(page: Page): Captured {
  const captured: Captured = { assertions: [], attestations: [], attestationAnswers: [] };
  page.on('request', (request) => {
    if (request.method() !== 'POST') return;
    if (request.url().endsWith('/relay/assertion/result')) captured.assertions.push(JSON.parse(request.postData() ?? '{}'));
    if (request.url().endsWith('/relay/attestation/result')) captured.attestations.push(JSON.parse(request.postData() ?? '{}'));
  });
  page.on('response', (response) => {
    if (response.url().endsWith('/relay/attestation/result')) {
      response.json().then((body: Record<string, any>) => captured.attestationAnswers.push(body), () => undefined);
    }
  });
  return captured;
}

interface Form {
  readonly user: string;
  readonly kind: AuthenticatorKind;
  readonly attestation?: 'none' | 'direct';
}

/** Opens a page and waits until its script has loaded the context (variant, suffix, session). */
async function open(page: Page, url: string): Promise<Response | null> {
  const response = await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  return response;
}

async function fill(page: Page, form: Form): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await page.evaluate(() => void ((document.querySelector('details') as HTMLDetailsElement).open = true));
  await page.fill('#username', form.user);
  await page.selectOption('#attachment', form.kind === 'platform' ? 'platform' : 'cross-platform');
  await page.selectOption('#user-verification', form.kind === 'platform' ? 'required' : 'discouraged');
  await page.selectOption('#attestation', form.attestation ?? 'none');
  await page.setChecked('#resident-key', form.kind === 'platform');
}

/** Clicks one of the page's buttons and returns the message the page settles on. */
async function click(page: Page, button: '#register' | '#sign-in'): Promise<{ kind: string; text: string }> {
  await page.evaluate(() => {
    const message = document.getElementById('message')!;
    message.dataset.kind = '';
    message.textContent = '';
  });
  await page.click(button);
  await page.waitForFunction(() => ['ok', 'error'].includes(document.getElementById('message')!.dataset.kind ?? ''), undefined, { timeout: 20_000 });
  return page.evaluate(() => {
    const message = document.getElementById('message')!;
    return { kind: message.dataset.kind ?? '', text: message.textContent ?? '' };
  });
}

/** Runs in the page before its scripts: makes it look like a browser without the WebAuthn JSON methods. */
function withoutNativeJsonHelpers(): void {
  const constructor = PublicKeyCredential as unknown as Record<string, unknown>;
  delete constructor.parseCreationOptionsFromJSON;
  delete constructor.parseRequestOptionsFromJSON;
  delete (PublicKeyCredential.prototype as unknown as Record<string, unknown>).toJSON;
}

describe('browser: the demo page through the relay, in Chromium', { timeout: 180_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let demo: RunningDemo;
  let browser: Browser;
  let demoPort: number;
  const tabs: BrowserTab[] = [];

  const tab = async (kind: AuthenticatorKind | null) => {
    const opened = await openTab(browser, kind);
    tabs.push(opened);
    return opened;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-browser-'));
    const servicePort = await freePort();
    demoPort = await freePort();
    service = await startServiceProcess(dir, {
      listen: { host: '127.0.0.1', port: servicePort },
      database: `sqlite:${join(dir, 'fido2.db')}`,
      challenges: 'memory',
      local: { enabled: true },
      demo: { enabled: false, host: '127.0.0.1', port: demoPort },
      dataDir: dir,
      applications: [{
        clientId: CLIENT_ID,
        name: 'Demo IdP',
        domain: DOMAIN,
        origins: [`https://${DOMAIN}:${demoPort}`],
        variants: ['standard', 'local'],
        // app.test is a development hostname the application lists; unlisted.test is one it does not.
        localOrigins: [`https://localhost:${demoPort}`, `https://app.test:${demoPort}`],
      }],
    }, servicePort);
    demo = await startDemo({
      serviceUrl: service.url, clientId: CLIENT_ID, vendor: 'Vendor', host: '127.0.0.1', port: demoPort,
      dataDir: dir, standardDomain: DOMAIN, devHostnames: ['app.test', 'unlisted.test'],
    });
    // *.localhost already resolves to loopback; the .test names and https://localhost (port 443, where
    // browsers fetch the related-origins document) are pointed at the demo.
    browser = await launchChromium(`MAP app.test 127.0.0.1, MAP unlisted.test 127.0.0.1, MAP localhost:443 127.0.0.1:${demoPort}`);
  });

  after(async () => {
    for (const opened of tabs) await opened.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await demo?.close();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves both variants and prints their addresses', () => {
    assert.deepEqual(demo.urls.slice(0, 2), [`https://${DOMAIN}:${demoPort}/`, `https://localhost:${demoPort}/`]);
  });

  // `native: false` removes the browser's parse…FromJSON/toJSON so the helper's own conversions run.
  const cases: Array<{ variant: 'standard' | 'local'; kind: AuthenticatorKind; attestation: 'none' | 'direct'; format: string; native: boolean }> = [
    { variant: 'standard', kind: 'platform', attestation: 'direct', format: 'packed', native: true },
    { variant: 'standard', kind: 'roaming', attestation: 'direct', format: 'fido-u2f', native: false },
    { variant: 'local', kind: 'platform', attestation: 'none', format: 'none', native: false },
    { variant: 'local', kind: 'roaming', attestation: 'none', format: 'none', native: true },
  ];

  for (const { variant, kind, attestation, format, native } of cases) {
    const helper = native ? 'native JSON helpers' : 'the helper\'s own JSON conversions';
    it(`${variant} variant, ${kind} authenticator (${helper}): registers (attestation ${attestation}, ${format}), signs in twice with the authenticator's counters, refuses a replay`, async () => {
      const opened = await tab(kind);
      const { page } = opened;
      if (!native) await page.addInitScript(withoutNativeJsonHelpers);
      const captured = capture(page);
      const url = variant === 'standard' ? `https://${DOMAIN}:${demoPort}/` : `https://localhost:${demoPort}/`;
      const user = `${kind}-${variant}`;
      const username = `${user}#${variant === 'standard' ? DOMAIN : 'localhost'}`;
      await open(page, url);
      assert.equal(await page.textContent('#variant'), variant);
      assert.equal(await page.evaluate(() => typeof PublicKeyCredential.prototype.toJSON + typeof (PublicKeyCredential as any).parseRequestOptionsFromJSON),
        native ? 'functionfunction' : 'undefinedundefined');
      await fill(page, { user, kind, attestation });

      const registered = await click(page, '#register');
      assert.deepEqual(registered, { kind: 'ok', text: `Passkey registered for ${username}. You can sign in with it now.` });
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
        const response = await fetch('/relay/assertion/result', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: response.status, body: await response.json() };
      }, replayed);
      assert.equal(viaRelay.body.status, 'failed');
      assert.equal(viaRelay.status, 400);
      const direct = await fetch(`${service.url}/api/assertion/result`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `Vendor AppID: ${CLIENT_ID}`,
          ...(variant === 'standard' ? { origin: `https://${DOMAIN}:${demoPort}` } : {}),
        },
        body: JSON.stringify(variant === 'standard' ? replayed : { ...replayed, extensions: { ...replayed.extensions, localhost: captured.attestationAnswers[0]!.localhost } }),
        signal: AbortSignal.timeout(10_000),
      });
      const directBody = await direct.json() as { status: string; errorMessage: string[] };
      assert.equal(directBody.status, 'failed');
      assert.equal(directBody.errorMessage[0], 'SESSION_ALREADY_REVOKED');
    });
  }

  it('tells a user who cancels (no authenticator present) what happened', async () => {
    const { page } = await tab(null);
    await open(page, `https://localhost:${demoPort}/`);
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

  it('tells a user who signs in without a passkey on this device what happened (both variants)', async () => {
    for (const url of [`https://${DOMAIN}:${demoPort}/`, `https://localhost:${demoPort}/`]) {
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

  it('local variant on a development hostname: the browser fetches the related-origins document, then registers, signs in and out', async () => {
    const opened = await tab('platform');
    const { page } = opened;
    const response = await open(page, `https://app.test:${demoPort}/`);
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
    await open(page, `https://unlisted.test:${demoPort}/`);
    await fill(page, { user: 'stranger', kind: 'platform' });
    const refused = await click(page, '#register');
    assert.equal(refused.kind, 'error');
    assert.equal(refused.text, ENGLISH_SENTENCES.pageAddress);
    assert.match(await page.textContent('#message-detail') ?? '', /^ORIGIN_NOT_MATCHED: /);
    assert.equal((await opened.credentials()).length, 1, 'the authenticator did sign: the refusal is the service\'s');
  });

  it('standard variant on an origin the application does not list: refused before any authenticator is asked', async () => {
    const other = await startDemo({
      serviceUrl: service.url, clientId: CLIENT_ID, vendor: 'Vendor', host: '127.0.0.1', port: 0, dataDir: dir, standardDomain: DOMAIN,
    });
    try {
      const opened = await tab('platform');
      await open(opened.page, other.urls[0]!);
      await fill(opened.page, { user: 'elsewhere', kind: 'platform' });
      const refused = await click(opened.page, '#register');
      assert.equal(refused.kind, 'error');
      assert.equal(refused.text, ENGLISH_SENTENCES.pageAddress);
      assert.match(await opened.page.textContent('#message-detail') ?? '', /^ORIGIN_NOT_ALLOWED: /);
      assert.equal((await opened.credentials()).length, 0);
    } finally {
      await other.close();
    }
  });

  it('a second passkey for an existing account needs that account signed in (the demo\'s registration rule)', async () => {
    const first = await tab('platform');
    await open(first.page, `https://${DOMAIN}:${demoPort}/`);
    await fill(first.page, { user: 'owner', kind: 'platform' });
    assert.equal((await click(first.page, '#register')).kind, 'ok');
    const intruder = await tab('roaming');
    await open(intruder.page, `https://${DOMAIN}:${demoPort}/`);
    await fill(intruder.page, { user: 'owner', kind: 'roaming' });
    const refused = await click(intruder.page, '#register');
    assert.equal(refused.kind, 'error');
    assert.equal(refused.text, ENGLISH_SENTENCES.registrationRefused);
    assert.match(await intruder.page.textContent('#message-detail') ?? '', /^REGISTRATION_NOT_ALLOWED: owner#demo\.localhost already has a passkey/);
    assert.equal((await intruder.credentials()).length, 0);
    // Signed in as the owner, adding another passkey is allowed.
    assert.equal((await click(first.page, '#sign-in')).kind, 'ok');
    await first.cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'u2f', transport: 'usb' } as never });
    await fill(first.page, { user: 'owner', kind: 'roaming' });
    assert.equal((await click(first.page, '#register')).kind, 'ok');
  });
});
