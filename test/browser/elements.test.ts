// The browser package's custom elements in Debian's Chromium, as an integrator serves them: the relay
// (default base /relay, userDomain) serves /relay/passkeys.mjs, a plain page uses <passkey-sign-in> and
// <passkey-list>, the real service runs as a process, and CDP virtual authenticators answer. Both variants:
// register, sign in by name, without a name and from the autofill list; the list and its confirmed
// deletion (the local variant's from the relay's local store, docs/relay.md). Issue 33: the rename control,
// names shown without `#domain`, and cancelling: an AbortSignal given to signIn(), an element removed from
// the page.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createRelay } from '@passkey-server/relay';
import { ensureDevCertificate } from '@passkey-server/demo';
import { freePort, launchChromium, openTab, startAppService, type ServiceProcess } from './support.js';

const CLIENT_ID = 'elements-client';
const DOMAIN = 'elements.localhost';

/** The page; `?autofill=off` leaves out the autofill list (set in the markup, before the element is defined). */
const page = (autofill: boolean) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Elements</title>
<script type="module" src="/relay/passkeys.mjs"></script></head>
<body>
<passkey-sign-in relay="/relay" allow-register${autofill ? '' : ' autofill="off"'}></passkey-sign-in>
<script type="module">
  const signIn = document.querySelector('passkey-sign-in');
  signIn.addEventListener('passkey-signed-in', (event) => {
    window.signedIn = event.detail;
    signIn.hidden = true;
    if (new URLSearchParams(location.search).has('list')) document.body.append(document.createElement('passkey-list'));
  });
</script>
</body></html>`;

type Variant = 'standard' | 'local';

interface Site {
  readonly url: string;
  readonly domain: string;
  readonly server: Server;
}

async function signedIn(page: Page): Promise<{ username: string; credentialId: string }> {
  await page.waitForFunction(() => (window as { signedIn?: unknown }).signedIn !== undefined, undefined, {
    timeout: 20_000,
  });
  return page.evaluate(() => (window as unknown as { signedIn: { username: string; credentialId: string } }).signedIn);
}

describe('browser package: <passkey-sign-in> and <passkey-list> in Chromium', { timeout: 180_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let browser: Browser;
  const sites = new Map<Variant, Site>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-elements-'));
    const [standardPort, localPort] = [await freePort(), await freePort()];
    const standardUrl = `https://${DOMAIN}:${standardPort}`;
    const localUrl = `https://localhost:${localPort}`;
    service = await startAppService(
      dir,
      [
        {
          clientId: CLIENT_ID,
          name: 'Elements IdP',
          domain: DOMAIN,
          origins: [standardUrl],
          variants: ['standard', 'local'],
          localOrigins: [localUrl],
        },
      ],
      { local: { enabled: true } },
    );
    const tls = await ensureDevCertificate(join(dir, 'tls'), ['localhost', DOMAIN]);
    for (const [variant, port, url] of [
      ['standard', standardPort, standardUrl],
      ['local', localPort, localUrl],
    ] as const) {
      const relay = createRelay({
        serviceUrl: service.url,
        clientId: CLIENT_ID,
        variant,
        ...(variant === 'standard' && { origin: url }),
        userDomain: variant === 'standard' ? DOMAIN : 'localhost',
        mayRegister: () => true,
      });
      const server = createServer({ cert: tls.certChain, key: tls.key }, (request, response) =>
        relay.handler(request, response, () => {
          response.setHeader('content-type', 'text/html; charset=utf-8');
          response.end(page(!(request.url ?? '').includes('autofill=off')));
        }),
      );
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      sites.set(variant, { url, domain: variant === 'standard' ? DOMAIN : 'localhost', server });
    }
    browser = await launchChromium('MAP elements.invalid 127.0.0.1');
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    for (const site of sites.values()) {
      site.server.closeAllConnections();
      site.server.close();
    }
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const variant of ['standard', 'local'] as const) {
    it(`${variant}: registers by plain name, signs in by name, without a name, and from the autofill list`, async () => {
      const site = sites.get(variant)!;
      const tab = await openTab(browser, 'platform');
      try {
        const { page } = tab;
        // Register: the user types a plain name; the relay adds the domain; the answer names the owner.
        await page.goto(`${site.url}/?autofill=off`);
        await page.fill('passkey-sign-in input', 'alice');
        await page.click('passkey-sign-in button[part~="register"]');
        const registered = await signedIn(page);
        assert.equal(registered.username, `alice#${site.domain}`);
        const [credential] = await tab.credentials();
        assert.ok(credential, 'the virtual authenticator holds the passkey');

        // By name: "Continue".
        await page.goto(`${site.url}/?autofill=off&step=name`);
        await page.waitForSelector('passkey-sign-in[data-autofill="off"]');
        await page.fill('passkey-sign-in input', 'alice');
        await page.click('passkey-sign-in button[part~="continue"]');
        assert.equal((await signedIn(page)).username, `alice#${site.domain}`);

        // Without a name: "Sign in with a passkey" (immediate mediation where offered, else modal).
        await page.goto(`${site.url}/?autofill=off&step=nameless`);
        await page.waitForSelector('passkey-sign-in[data-autofill="off"]');
        await page.click('passkey-sign-in button[part~="passkey"]');
        const nameless = await signedIn(page);
        assert.equal(nameless.username, `alice#${site.domain}`);
        assert.equal(nameless.credentialId, registered.credentialId);

        // From the autofill list: started on load; Chromium picks the virtual authenticator's passkey.
        await page.goto(`${site.url}/?step=autofill`);
        assert.equal((await signedIn(page)).username, `alice#${site.domain}`);
        assert.equal(await page.getAttribute('passkey-sign-in', 'data-autofill'), 'done');
      } finally {
        await tab.close();
      }
    });
  }

  it('the field asks for a name before "Continue", and a failure shows a sentence, never raw JSON', async () => {
    const site = sites.get('standard')!;
    const tab = await openTab(browser, 'platform');
    try {
      const { page } = tab;
      await page.goto(`${site.url}/?autofill=off`);
      await page.click('passkey-sign-in button[part~="continue"]');
      assert.equal(await page.textContent('passkey-sign-in [part~="message"]'), 'Enter your user name first.');
      // A name the service refuses (too long): its sentence, and the error name on the element.
      await page.fill('passkey-sign-in input', 'x'.repeat(300));
      await page.click('passkey-sign-in button[part~="register"]');
      await page.waitForSelector('passkey-sign-in[data-state="error"]', { timeout: 15_000 });
      const name = await page.getAttribute('passkey-sign-in', 'data-error');
      assert.match(name ?? '', /^[A-Z][A-Z_]+$/);
      const sentence = await page.textContent('passkey-sign-in [part~="message"]');
      assert.doesNotMatch(sentence ?? '', /JSON|Unexpected token|[A-Z]{4,}_/);
    } finally {
      await tab.close();
    }
  });

  for (const variant of ['standard', 'local'] as const)
    it(`${variant}: <passkey-list> shows the passkey and deletes it only after a confirmation`, async () => {
      const site = sites.get(variant)!;
      const tab = await openTab(browser, 'platform');
      try {
        const { page } = tab;
        await page.goto(`${site.url}/?autofill=off&list`);
        await page.fill('passkey-sign-in input', 'bob');
        await page.click('passkey-sign-in button[part~="register"]');
        const { credentialId } = await signedIn(page);
        await page.waitForSelector('passkey-list[data-state="ready"]', { timeout: 15_000 });
        const item = `passkey-list li[data-credential-id="${credentialId}"]`;
        assert.equal(await page.textContent(`${item} [part~="name"]`), 'Passkey');
        assert.match(
          (await page.textContent(`${item} [part~="facts"]`)) ?? '',
          /^On one device · Created .+ · Last used never$/,
        );
        assert.ok(await page.getAttribute(`${item} img[part~="icon"]`, 'src'));

        // Who: the name before `#`, never the domain (no display name was given).
        assert.equal(await page.textContent('passkey-sign-in [part~="message"]'), 'Signed in as bob');
        assert.equal(await page.textContent('passkey-list [part~="account"]'), 'Signed in as bob');

        // "Rename", then "Cancel": unchanged; "Rename", a name, "Save": the list shows it.
        await page.click(`${item} button[part~="rename"]`);
        await page.click(`${item} button[part~="rename-cancel"]`);
        assert.equal(await page.locator(`${item} [part~="rename-form"]`).count(), 0);
        await page.click(`${item} button[part~="rename"]`);
        await page.fill(`${item} input[part~="rename-input"]`, '  Work laptop ');
        const renamed = page.evaluate(
          () =>
            new Promise((resolve) =>
              document.addEventListener('passkey-renamed', (event) => resolve((event as CustomEvent).detail), {
                once: true,
              }),
            ),
        );
        await page.click(`${item} button[part~="rename-save"]`);
        assert.deepEqual(await renamed, { credentialId, nickname: 'Work laptop' });
        await page.waitForFunction(
          (selector) =>
            document.querySelector('passkey-list')?.shadowRoot?.querySelector(selector)?.textContent === 'Work laptop',
          `li[data-credential-id="${credentialId}"] [part~="name"]`,
          { timeout: 15_000 },
        );
        assert.equal(await page.textContent('passkey-list [part~="message"]'), 'Passkey renamed.');
        // Saved where the list comes from: a fresh list shows it too.
        await page.evaluate(() =>
          (document.querySelector('passkey-list') as unknown as { reload(): Promise<void> }).reload(),
        );
        assert.equal(await page.textContent(`${item} [part~="name"]`), 'Work laptop');

        // "Delete", then "Cancel": nothing is deleted.
        await page.click(`${item} button[part~="delete"]`);
        assert.equal(
          await page.textContent(`${item} [part~="confirm-text"]`),
          'Delete this passkey? You will no longer be able to sign in with it.',
        );
        await page.click(`${item} button[part~="cancel"]`);
        assert.equal(await page.locator(`${item} [part~="confirm"]`).count(), 0);
        assert.equal(await page.locator('passkey-list li').count(), 1);

        // "Delete", then "Delete passkey": gone, and the list says so.
        await page.click(`${item} button[part~="delete"]`);
        await page.click(`${item} button[part~="confirm-delete"]`);
        await page.waitForSelector('passkey-list [part~="empty"]', { timeout: 15_000 });
        assert.equal(await page.textContent('passkey-list [part~="message"]'), 'Passkey deleted.');
        assert.equal(await page.locator('passkey-list li').count(), 0);
      } finally {
        await tab.close();
      }
    });

  it('cancels: signIn() with an AbortSignal, and an element removed from the page', async () => {
    const site = sites.get('standard')!;
    // No authenticator: the browser's dialog waits, as it does for a user who has not answered yet.
    const tab = await openTab(browser, null);
    try {
      const { page } = tab;
      await page.goto(`${site.url}/?autofill=off`);
      await page.waitForSelector('passkey-sign-in[data-autofill="off"]');
      const cancelled = await page.evaluate(async () => {
        const passkeys = await import('/relay/passkeys.mjs' as string);
        const controller = new AbortController();
        const started = passkeys.signIn({ username: 'carol', signal: controller.signal }).then(
          () => ({ name: 'resolved', message: '' }),
          (error: { name: string; message: string }) => ({ name: error.name, message: error.message }),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        controller.abort();
        return Promise.race([started, new Promise((resolve) => setTimeout(() => resolve({ name: 'hung' }), 5000))]);
      });
      assert.deepEqual(cancelled, {
        name: 'AbortError',
        message: 'Nothing happened: the request was cancelled or timed out. Try again when you are ready.',
      });

      // The element's own ceremony: the dialog it opened is closed once the element leaves the page.
      await page.evaluate(() => {
        const original = navigator.credentials.get.bind(navigator.credentials);
        const seen: AbortSignal[] = [];
        (window as unknown as { seen: AbortSignal[] }).seen = seen;
        navigator.credentials.get = (options?: CredentialRequestOptions) => {
          if (options?.signal) seen.push(options.signal);
          return original(options);
        };
      });
      await page.fill('passkey-sign-in input', 'carol');
      await page.click('passkey-sign-in button[part~="continue"]');
      await page.waitForFunction(() => (window as unknown as { seen: AbortSignal[] }).seen.length > 0, undefined, {
        timeout: 15_000,
      });
      const after = await page.evaluate(async () => {
        const { seen } = window as unknown as { seen: AbortSignal[] };
        const before = seen[0]!.aborted;
        const errors: string[] = [];
        document.addEventListener('passkey-error', (event) => errors.push((event as CustomEvent).detail.name));
        document.querySelector('passkey-sign-in')!.remove();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { before, after: seen[0]!.aborted, errors };
      });
      assert.deepEqual(after, { before: false, after: true, errors: [] });
      // The browser let the request go: a new ceremony starts at once (one WebAuthn request at a time).
      const next = await page.evaluate(async () => {
        const passkeys = await import('/relay/passkeys.mjs' as string);
        const controller = new AbortController();
        const started = passkeys
          .signIn({ username: 'carol', signal: controller.signal })
          .catch((error: { name: string }) => error.name);
        await new Promise((resolve) => setTimeout(resolve, 300));
        controller.abort();
        return started;
      });
      assert.equal(next, 'AbortError');
    } finally {
      await tab.close();
    }
  });
});
