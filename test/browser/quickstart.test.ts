// The quickstart of docs/relay.md, run as written: its code blocks become the files of two throwaway apps,
// a CommonJS Express app (server.js) and an ES module Fastify app (server.mjs), each with the page
// public/index.html. Each installs what the doc's `npm install` line says, the relay from its `npm pack`
// tarball and the framework and its session middleware from the npm registry (or npm's cache); the real
// service runs as a process, TLS sits in front of each app as the doc says, and Chromium with a virtual
// authenticator uses the page's <passkey-sign-in> and <passkey-list>. So the doc cannot drift from the
// packages; and a stranger who types an existing user's name cannot add a passkey to that account.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { ensureDevCertificate } from '@passkey-server/demo';
import { makeApp, npmIn, packWorkspaces, QUIET } from '../packages/npm.js';
import {
  installedPackages,
  listenLocal,
  sectionFiles,
  startApp,
  textOf,
  tlsFront,
  writeFiles,
  type AppProcess,
} from './doc-apps.js';
import { freePort, launchChromium, openTab, REPO, startAppService, type ServiceProcess } from './support.js';

const CLIENT_ID = 'quickstart-client';
/** The application's relay secret: the service keeps its hash, the quickstart's relay sends it. */
const RELAY_SECRET = 'prs_quickstart-relay-secret-0123456789abcdefgh';
const DOMAIN = 'idp.localhost';
/** What the doc asks for: at least 32 random characters (Fastify's session refuses fewer). */
const SESSION_SECRET = 'quickstart-session-secret-0123456789abcdef';

const APPS = [
  { name: 'express', script: 'server.js', type: 'commonjs', user: 'alice' },
  { name: 'fastify', script: 'server.mjs', type: 'module', user: 'carol' },
] as const;

interface Running {
  readonly url: string;
  readonly app: AppProcess;
  readonly front: Server;
}

describe('docs/relay.md: the quickstart, run as written (Express and Fastify)', { timeout: 420_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let browser: Browser;
  const running = new Map<string, Running>();
  const fronts: Server[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-quickstart-'));
    const markdown = readFileSync(join(REPO, 'docs', 'relay.md'), 'utf8');
    const files = sectionFiles(markdown, 'Quickstart');
    assert.deepEqual([...files.keys()].sort(), ['public/index.html', 'server.js', 'server.mjs']);
    const { relay } = await packWorkspaces(dir);
    // Each page's TLS front listens first, on a port the kernel picks: the origins the service is told are
    // then the fronts' own, and no other test can take a port between its choice and its use.
    const tls = await ensureDevCertificate(join(dir, 'tls'), ['localhost', DOMAIN]);
    const ports = new Map<string, { app: number; front: Server; frontPort: number }>();
    for (const { name } of APPS) {
      const app = await freePort();
      const front = tlsFront(tls.certChain, tls.key, app);
      fronts.push(front);
      ports.set(name, { app, front, frontPort: await listenLocal(front) });
    }
    const urlOf = (name: string) => `https://${DOMAIN}:${ports.get(name)!.frontPort}`;

    // Both installs side by side: the framework from the registry, the relay from its tarball.
    const installed = await Promise.all(
      APPS.map(async ({ name, script, type }) => {
        const appDir = await makeApp(dir, `app-${name}`, type);
        await writeFiles(appDir, new Map([...files].filter(([file]) => file === script || file.startsWith('public/'))));
        const packages = installedPackages(markdown, name).map((one) =>
          one === '@passkey-server/relay' ? relay.tarball : one,
        );
        assert.ok(packages.includes(relay.tarball), `npm install ${name} … names the relay`);
        await npmIn(appDir, ['install', '--prefer-offline', ...QUIET, ...packages]);
        return appDir;
      }),
    );
    service = await startAppService(dir, [
      {
        clientId: CLIENT_ID,
        name: 'Quickstart IdP',
        domain: DOMAIN,
        origins: APPS.map(({ name }) => urlOf(name)),
        variants: ['standard'],
        relaySecrets: [relaySecretHash(RELAY_SECRET)],
      },
    ]);
    for (const [index, { name, script }] of APPS.entries()) {
      const port = ports.get(name)!;
      const app = await startApp(
        installed[index]!,
        script,
        {
          PASSKEY_SERVICE_URL: service.url,
          PASSKEY_CLIENT_ID: CLIENT_ID,
          PASSKEY_RELAY_SECRET: RELAY_SECRET,
          PAGE_ORIGIN: urlOf(name),
          PASSKEY_USER_DOMAIN: DOMAIN,
          SESSION_SECRET: SESSION_SECRET,
          PORT: String(port.app),
        },
        `login page on port ${port.app}`,
      );
      running.set(name, { url: urlOf(name), app, front: port.front });
    }
    browser = await launchChromium('MAP quickstart.invalid 127.0.0.1'); // *.localhost is loopback already
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    for (const front of fronts) {
      front.closeAllConnections();
      front.close();
    }
    for (const { app } of running.values()) app.stop();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const { name, script, user } of APPS) {
    it(`${name} (${script}): registers, lists, signs in from autofill; a stranger cannot add a passkey, the owner can`, async () => {
      const { url, app } = running.get(name)!;
      const owner = await openTab(browser, 'platform');
      const stranger = await openTab(browser, 'platform');
      try {
        const { page } = owner;
        await page.goto(`${url}/`);
        // The user types a plain name; the relay adds the domain (userDomain); the page shows the answer's name.
        // A new name creates its account with its first passkey (allowSignUp).
        await page.fill('passkey-sign-in input', user);
        await page.click('passkey-sign-in button[part~="register"]');
        assert.equal(await textOf(page, '#welcome'), `Signed in as ${user}#${DOMAIN}.`);
        assert.equal((await owner.credentials()).length, 1);
        await page.waitForSelector('passkey-list[data-state="ready"]', { timeout: 15_000 });
        assert.equal(await page.locator('passkey-list li').count(), 1);

        // Back on the page: the field's autofill request starts on load, and Chromium's virtual authenticator
        // answers it by itself (a person would pick the passkey from the list): signed in, no name typed.
        await page.goto(`${url}/`);
        assert.equal(await textOf(page, '#welcome'), `Signed in as ${user}#${DOMAIN}.`);
        assert.match(app.output(), new RegExp(`signed in: ${user}#${DOMAIN}`), 'onResult saw the sign-in');

        // A stranger (another browser, no session) types the user's name and presses "Create a passkey":
        // refused with a sentence, no ceremony started, nothing added to the account.
        const other = stranger.page;
        await other.goto(`${url}/`);
        await other.fill('passkey-sign-in input', user);
        await other.click('passkey-sign-in button[part~="register"]');
        await other.waitForSelector('passkey-sign-in[data-state="error"]', { timeout: 15_000 });
        assert.equal(await other.getAttribute('passkey-sign-in', 'data-error'), 'REGISTRATION_NOT_ALLOWED');
        assert.equal(
          await other.textContent('passkey-sign-in [part~="message"]'),
          'You cannot add a passkey to this account now. Sign in first, then add one.',
        );
        assert.equal(await other.isHidden('#welcome'), true);
        assert.equal((await stranger.credentials()).length, 0);

        // The owner, signed in, adds a second passkey from the list (the authenticator forgets the first, so
        // it may make another for the same account): the service now lists two.
        await page.waitForSelector('passkey-list[data-state="ready"]', { timeout: 15_000 });
        assert.equal(await page.locator('passkey-list li').count(), 1, "the stranger's attempt added nothing");
        const [first] = await owner.credentials();
        await owner.cdp.send('WebAuthn.removeCredential', {
          authenticatorId: owner.authenticatorId!,
          credentialId: first!.credentialId,
        });
        await page.click('passkey-list button[part~="add"]');
        await page.locator('passkey-list li').nth(1).waitFor({ timeout: 15_000 });
        assert.equal(await page.locator('passkey-list li').count(), 2);
        assert.equal((await owner.credentials()).length, 1);
      } finally {
        await owner.close();
        await stranger.close();
      }
    });
  }

  it('shows a sentence for the user when the service refuses (the name on the element, never raw JSON)', async () => {
    const { url } = running.get('express')!;
    const tab = await openTab(browser, 'platform');
    try {
      const { page } = tab;
      await page.goto(`${url}/`);
      await page.fill('passkey-sign-in input', 'x'.repeat(300));
      await page.click('passkey-sign-in button[part~="register"]');
      await page.waitForSelector('passkey-sign-in[data-state="error"]', { timeout: 15_000 });
      assert.match((await page.getAttribute('passkey-sign-in', 'data-error')) ?? '', /^[A-Z][A-Z_]+$/);
      const sentence = await page.textContent('passkey-sign-in [part~="message"]');
      assert.ok((sentence ?? '').length > 10);
      assert.doesNotMatch(sentence ?? '', /JSON|Unexpected token|[A-Z]{4,}_/);
      assert.equal(await page.isHidden('#welcome'), true);
    } finally {
      await tab.close();
    }
  });
});
