// docs/examples.md, run as written: its React app (main.jsx, App.jsx, public/index.html, bundled
// by the esbuild command the doc shows) and its page without ES modules (public/index.html on the relay's
// passkeys.js), each on the quickstart's Express server (docs/relay.md, server.js). The packages install
// from their `npm pack` tarballs, express, react and react-dom from the npm registry (or npm's cache); the
// real service runs as a process, TLS sits in front, and Chromium with a virtual authenticator signs in.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ensureDevCertificate } from '@passkey-server/demo';
import { makeApp, npmIn, packWorkspaces, QUIET, run } from '../packages/npm.js';
import {
  type AppProcess,
  installedPackages,
  listenLocal,
  sectionFiles,
  startApp,
  textOf,
  tlsFront,
  writeFiles,
} from './doc-apps.js';
import { freePort, launchChromium, openTab, REPO, startAppService, type ServiceProcess } from './support.js';

const CLIENT_ID = 'examples-client';
const DOMAIN = 'examples.localhost';
const EXAMPLES = ['React', 'Plain HTML'] as const;

describe('docs/examples.md: the React and plain-HTML pages, run as written', { timeout: 420_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let browser: Browser;
  const running = new Map<string, { url: string; app: AppProcess; front: Server }>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-examples-'));
    const markdown = readFileSync(join(REPO, 'docs', 'examples.md'), 'utf8');
    const quickstart = readFileSync(join(REPO, 'docs', 'relay.md'), 'utf8');
    const server = sectionFiles(quickstart, 'Quickstart').get('server.js')!;
    // The doc's `npm install` lines as written, the packages from their tarballs.
    const tarballs = (packages: string[]) =>
      packages.map((one) =>
        one === '@passkey-server/relay' ? relay.tarball : one === '@passkey-server/browser' ? helper.tarball : one,
      );
    const { relay, browser: helper } = await packWorkspaces(dir);
    const ports = new Map(
      await Promise.all(EXAMPLES.map(async (name) => [name, [await freePort(), await freePort()]] as const)),
    );
    const urlOf = (name: string) => `https://${DOMAIN}:${ports.get(name as (typeof EXAMPLES)[number])![1]}`;

    const installed = await Promise.all(
      EXAMPLES.map(async (name) => {
        const files = sectionFiles(markdown, name);
        const appDir = await makeApp(dir, `app-${name.replace(' ', '-').toLowerCase()}`, 'commonjs');
        await writeFiles(appDir, new Map([...files, ['server.js', server]]));
        if (name === 'React') {
          assert.deepEqual([...files.keys()].sort(), ['public/index.html', 'src/App.jsx', 'src/main.jsx']);
          const packages = tarballs(installedPackages(markdown, 'express'));
          assert.ok(
            packages.includes(relay.tarball) && packages.includes(helper.tarball) && packages.includes('react'),
          );
          await npmIn(appDir, ['install', '--prefer-offline', ...QUIET, ...packages]);
          // The doc's build command, with the esbuild this repository pins (the doc's `npm install -D esbuild`).
          const command = /^npx esbuild (.+)$/m.exec(markdown)![1]!.split(' ');
          await run(join(REPO, 'node_modules', '.bin', 'esbuild'), command, { cwd: appDir, timeout: 60_000 });
        } else {
          assert.deepEqual([...files.keys()], ['public/index.html']);
          // The quickstart's server.js, installed as the quickstart says.
          const packages = tarballs(installedPackages(quickstart, 'express'));
          await npmIn(appDir, ['install', '--prefer-offline', ...QUIET, ...packages]);
        }
        return appDir;
      }),
    );
    service = await startAppService(dir, [
      {
        clientId: CLIENT_ID,
        name: 'Examples IdP',
        domain: DOMAIN,
        origins: EXAMPLES.map(urlOf),
        variants: ['standard'],
      },
    ]);
    const tls = await ensureDevCertificate(join(dir, 'tls'), ['localhost', DOMAIN]);
    for (const [index, name] of EXAMPLES.entries()) {
      const [appPort, frontPort] = ports.get(name)!;
      const environment = {
        PASSKEY_SERVICE_URL: service.url,
        PASSKEY_CLIENT_ID: CLIENT_ID,
        PAGE_ORIGIN: urlOf(name),
        PASSKEY_USER_DOMAIN: DOMAIN,
        SESSION_SECRET: 'examples-session-secret-0123456789abcdef',
        PORT: String(appPort),
      };
      const app = await startApp(installed[index]!, 'server.js', environment, `login page on port ${appPort}`);
      const front = tlsFront(tls.certChain, tls.key, appPort!);
      await listenLocal(front, frontPort);
      running.set(name, { url: urlOf(name), app, front });
    }
    browser = await launchChromium('MAP examples.invalid 127.0.0.1'); // *.localhost is loopback already
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    for (const { app, front } of running.values()) {
      front.closeAllConnections();
      front.close();
      app.stop();
    }
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('React: the elements register and sign in; the app shows who from the event, then the passkey list', async () => {
    const tab = await openTab(browser, 'platform');
    try {
      const { page } = tab;
      const problems: string[] = [];
      page.on('pageerror', (error) => void problems.push(String(error)));
      page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
      await page.goto(`${running.get('React')!.url}/`);
      try {
        await page.waitForSelector('passkey-sign-in input', { timeout: 20_000 });
      } catch (error) {
        // What the page and the app said, so a failure under load can be read.
        const html = await page.content().catch(() => '');
        assert.fail(`${String(error)}\n${problems.join('\n')}\n${html}\n${running.get('React')!.app.output()}`);
      }
      await page.fill('passkey-sign-in input', 'dave');
      await page.click('passkey-sign-in button[part~="register"]');
      assert.equal(await textOf(page, '#welcome'), `Signed in as dave#${DOMAIN}.`);
      await page.waitForSelector('passkey-list[data-state="ready"]', { timeout: 15_000 });
      assert.equal(await page.locator('passkey-list li').count(), 1);
    } finally {
      await tab.close();
    }
  });

  it('plain HTML: Passkeys.register and Passkeys.signIn from passkeys.js; a failure is a sentence', async () => {
    const tab = await openTab(browser, 'platform');
    try {
      const { page } = tab;
      await page.goto(`${running.get('Plain HTML')!.url}/`);
      await page.click('#register'); // no name yet: the user's sentence, not an exception
      const sentence = await textOf(page, '#message');
      assert.doesNotMatch(sentence, /JSON|Unexpected token|[A-Z]{4,}_|undefined/);
      await page.fill('#username', 'erin');
      await page.click('#register');
      await page.waitForFunction(
        () => document.getElementById('message')!.textContent!.startsWith('Signed in'),
        undefined,
        {
          timeout: 20_000,
        },
      );
      assert.equal(await textOf(page, '#message'), `Signed in as erin#${DOMAIN}.`);
      await page.evaluate(() => void (document.getElementById('message')!.textContent = ''));
      await page.click('button:text("Continue")');
      assert.equal(await textOf(page, '#message'), `Signed in as erin#${DOMAIN}.`);
    } finally {
      await tab.close();
    }
  });
});
