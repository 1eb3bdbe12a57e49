// A form posted from another site's page, in Chromium, against a relay behind express.urlencoded() and
// express.json() (issue 33): the victim is signed in (a SameSite=None session cookie, so Chromium sends
// it along with the forged form), the attacker's page auto-submits a form to the relay's delete action,
// and the relay refuses it (403 CROSS_SITE_REQUEST) before anything reaches the service: the passkey stays.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import session from 'express-session';
import type { Browser } from 'playwright-core';
import { ensureDevCertificate } from '@passkey-server/demo';
import { expressRelay } from '@passkey-server/relay';
import { listenLocal, textOf, tlsFront } from './doc-apps.js';
import { freePort, launchChromium, openTab, startAppService, type ServiceProcess } from './support.js';

const CLIENT_ID = 'cross-site-client';
const DOMAIN = 'idp.localhost';

const PAGE = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Sign in</title>
<script type="module" src="/relay/passkeys.mjs"></script>
<passkey-sign-in allow-register></passkey-sign-in>
<p id="welcome" hidden></p>
<script type="module">
  document.querySelector('passkey-sign-in').addEventListener('passkey-signed-in', (event) => {
    const welcome = document.getElementById('welcome');
    welcome.textContent = 'Signed in as ' + event.detail.username + '.';
    welcome.hidden = false;
    welcome.after(document.createElement('passkey-list'));
  });
</script>`;

/** The attacker's page: a form that posts itself to the victim's relay as soon as it loads. */
const attackPage = (action: string, credentialId: string) => `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Win a prize</title>
<form method="post" action="${action}"><input type="hidden" name="credentialId" value="${credentialId}"></form>
<script>document.forms[0].submit();</script>`;

describe('relay: a form posted from another site, in Chromium (behind express.urlencoded and express.json)', {
  timeout: 180_000,
}, () => {
  let dir: string;
  let service: ServiceProcess;
  let browser: Browser;
  let app: HttpServer;
  let front: Server;
  let attacker: Server;
  let pageUrl: string;
  let attackerUrl: string;
  let credentialId = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-cross-site-'));
    const tls = await ensureDevCertificate(join(dir, 'tls'), ['localhost', DOMAIN, 'attacker.localhost']);
    const appPort = await freePort();
    front = tlsFront(tls.certChain, tls.key, appPort);
    pageUrl = `https://${DOMAIN}:${await listenLocal(front)}`;
    attacker = createHttpsServer({ cert: tls.certChain, key: tls.key }, (_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(attackPage(`${pageUrl}/relay/credentials/delete`, credentialId));
    });
    attackerUrl = `https://attacker.localhost:${await listenLocal(attacker)}`;
    service = await startAppService(dir, [
      { clientId: CLIENT_ID, name: 'Cross-site IdP', domain: DOMAIN, origins: [pageUrl], variants: ['standard'] },
    ]);
    const site = express();
    site.set('trust proxy', 'loopback');
    // A session cookie a cross-site form carries (SameSite=None): the relay's own check is all that stops it.
    site.use(
      session({
        secret: 'cross-site-session-secret-0123456789abcdef',
        resave: false,
        saveUninitialized: false,
        cookie: { secure: true, httpOnly: true, sameSite: 'none' },
      }),
    );
    site.use(express.urlencoded({ extended: true }));
    site.use(express.json());
    site.use(
      expressRelay({
        serviceUrl: service.url,
        clientId: CLIENT_ID,
        origin: pageUrl,
        userDomain: DOMAIN,
        allowSignUp: true,
      }),
    );
    site.get('/', (_request, response) => void response.type('html').send(PAGE));
    app = site.listen(appPort, '127.0.0.1');
    await new Promise((resolve, reject) => {
      app.once('listening', resolve);
      app.once('error', reject);
    });
    browser = await launchChromium('MAP cross-site.invalid 127.0.0.1'); // *.localhost is loopback already
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    for (const server of [front, attacker, app]) {
      server?.closeAllConnections();
      server?.close();
    }
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses the forged delete: 403 CROSS_SITE_REQUEST, and the victim's passkey stays", async () => {
    const tab = await openTab(browser, 'platform');
    try {
      const { page } = tab;
      await page.goto(`${pageUrl}/`);
      await page.fill('passkey-sign-in input', 'victim');
      await page.click('passkey-sign-in button[part~="register"]');
      assert.equal(await textOf(page, '#welcome'), `Signed in as victim#${DOMAIN}.`);
      await page.waitForSelector('passkey-list[data-state="ready"]', { timeout: 15_000 });
      credentialId = (await page.locator('passkey-list li').first().getAttribute('data-credential-id')) ?? '';
      assert.notEqual(credentialId, '');

      // The victim visits the attacker's page: its form posts itself to the relay, with the session cookie.
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/relay/credentials/delete'), { timeout: 15_000 }),
        page.goto(`${attackerUrl}/`),
      ]);
      assert.equal(answer.status(), 403);
      const sent = await answer.request().allHeaders();
      assert.equal(sent['content-type'], 'application/x-www-form-urlencoded');
      assert.match(sent.cookie ?? '', /connect\.sid=/, 'Chromium sent the session cookie along');
      assert.deepEqual((await answer.json()).errorMessage[0], 'CROSS_SITE_REQUEST');

      // Back on the site, the victim's own call lists the passkey: nothing was deleted.
      await page.goto(`${pageUrl}/`);
      const listed = await page.evaluate(async () => {
        const response = await fetch('/relay/credentials/list', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        return (await response.json()) as { status: string; credentials?: { credentialId: string }[] };
      });
      assert.equal(listed.status, 'ok');
      assert.deepEqual(
        listed.credentials?.map((one) => one.credentialId),
        [credentialId],
      );
    } finally {
      await tab.close();
    }
  });
});
