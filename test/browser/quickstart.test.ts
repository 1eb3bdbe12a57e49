// The Express quickstart of docs/relay.md, run as written: its code blocks become the files of a throwaway
// app (server.mjs, public/index.html, public/login.js) with the packages linked as an install would place
// them; the real service runs as a process, TLS sits in front of the app as the doc says, and Chromium
// with a virtual authenticator clicks the page's buttons. So the doc cannot drift from the packages.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { relaySecretHash } from '../../src/config/relay-secrets.js';
import { ensureDevCertificate } from '@passkey-server/demo';
import {
  freePort,
  launchChromium,
  openTab,
  REPO,
  startServiceProcess,
  type BrowserTab,
  type ServiceProcess,
} from './support.js';

const CLIENT_ID = 'quickstart-client';
/** The application's relay secret: the service keeps its hash, the quickstart's relay sends it. */
const RELAY_SECRET = 'prs_quickstart-relay-secret-0123456789abcdefgh';
const DOMAIN = 'idp.localhost';

/** The fenced code blocks of the doc's quickstart section, by the file name each one names in its first lines. */
function quickstartFiles(markdown: string): Map<string, string> {
  const start = markdown.indexOf('## Quickstart');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end);
  const files = new Map<string, string>();
  for (const match of section.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)) {
    const code = match[1]!;
    const named = code
      .split('\n')
      .slice(0, 2)
      .map((line) => /^(?:\/\/|<!--)\s*([\w./-]+\.(?:mjs|js|html))\s*(?:-->)?$/.exec(line)?.[1])
      .find(Boolean);
    if (named) files.set(named, code);
  }
  return files;
}

/** TLS in front of the app, as the quickstart asks: every request passed through to the app's port. */
function tlsFront(certChain: string, key: string, appPort: number): Server {
  return createHttpsServer({ cert: certChain, key }, (incoming, outgoing) => {
    const forward = httpRequest(
      { host: '127.0.0.1', port: appPort, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
}

async function clickAndRead(page: Page, button: string): Promise<string> {
  await page.evaluate(() => void (document.getElementById('message')!.textContent = ''));
  await page.click(button);
  await page.waitForFunction(
    () => !['', '…'].includes(document.getElementById('message')!.textContent ?? ''),
    undefined,
    { timeout: 20_000 },
  );
  return (await page.textContent('#message')) ?? '';
}

describe('docs/relay.md: the Express quickstart, run as written', { timeout: 120_000 }, () => {
  let dir: string;
  let service: ServiceProcess;
  let app: ChildProcess;
  let appOutput = '';
  let front: Server;
  let browser: Browser;
  let tab: BrowserTab;
  let pageUrl: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-quickstart-'));
    const files = quickstartFiles(readFileSync(join(REPO, 'docs', 'relay.md'), 'utf8'));
    assert.deepEqual([...files.keys()].sort(), ['public/index.html', 'public/login.js', 'server.mjs']);
    const appDir = join(dir, 'app');
    for (const [name, code] of files) {
      await mkdir(dirname(join(appDir, name)), { recursive: true });
      await writeFile(join(appDir, name), code);
    }
    // Where `npm install express @passkey-server/relay @passkey-server/browser` would put them.
    await mkdir(join(appDir, 'node_modules', '@passkey-server'), { recursive: true });
    await symlink(join(REPO, 'node_modules', 'express'), join(appDir, 'node_modules', 'express'), 'dir');
    for (const name of ['relay', 'browser'])
      await symlink(join(REPO, 'packages', name), join(appDir, 'node_modules', '@passkey-server', name), 'dir');

    const [servicePort, appPort, frontPort] = [await freePort(), await freePort(), await freePort()];
    pageUrl = `https://${DOMAIN}:${frontPort}`;
    service = await startServiceProcess(
      dir,
      {
        listen: { host: '127.0.0.1', port: servicePort },
        database: `sqlite:${join(dir, 'fido2.db')}`,
        challenges: 'memory',
        demo: { enabled: false },
        dataDir: dir,
        applications: [
          {
            clientId: CLIENT_ID,
            name: 'Quickstart IdP',
            domain: DOMAIN,
            origins: [pageUrl],
            variants: ['standard'],
            relaySecrets: [relaySecretHash(RELAY_SECRET)],
          },
        ],
      },
      servicePort,
    );

    app = spawn(process.execPath, ['server.mjs'], {
      cwd: appDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PASSKEY_SERVICE_URL: service.url,
        PASSKEY_CLIENT_ID: CLIENT_ID,
        PASSKEY_RELAY_SECRET: RELAY_SECRET,
        PAGE_ORIGIN: pageUrl,
        PORT: String(appPort),
      },
    });
    app.stdout!.on('data', (chunk: Buffer) => void (appOutput += chunk.toString()));
    app.stderr!.on('data', (chunk: Buffer) => void (appOutput += chunk.toString()));
    const deadline = Date.now() + 20_000;
    while (!appOutput.includes(`login page on port ${appPort}`)) {
      if (app.exitCode !== null || Date.now() > deadline)
        throw new Error(`the quickstart server did not start:\n${appOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const tls = await ensureDevCertificate(join(dir, 'tls'), ['localhost', DOMAIN]);
    front = tlsFront(tls.certChain, tls.key, appPort);
    await new Promise<void>((resolve) => front.listen(frontPort, '127.0.0.1', resolve));
    browser = await launchChromium('MAP quickstart.invalid 127.0.0.1'); // *.localhost is loopback already
    tab = await openTab(browser, 'platform');
  });

  after(async () => {
    await tab?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    front?.closeAllConnections();
    front?.close();
    app?.kill('SIGTERM');
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("registers a passkey and signs in with it through the doc's server and page", async () => {
    const { page } = tab;
    await page.goto(`${pageUrl}/`);
    await page.fill('#username', `alice#${DOMAIN}`);
    assert.equal(await clickAndRead(page, '#register'), `Passkey registered for alice#${DOMAIN}.`);
    assert.equal((await tab.credentials()).length, 1);
    assert.equal(await clickAndRead(page, '#sign-in'), `Signed in as alice#${DOMAIN}.`);
    assert.match(appOutput, new RegExp(`signed in: alice#${DOMAIN}`), 'onResult saw the sign-in');
  });

  it('shows a sentence for the user when the service refuses (and the name only in the console)', async () => {
    const { page } = tab;
    const warnings: string[] = [];
    page.on('console', (message) => void (message.type() === 'warning' && warnings.push(message.text())));
    await page.fill('#username', 'no-hash-here');
    const text = await clickAndRead(page, '#register');
    assert.equal(text, 'This user name cannot be used here. Check it and try again.');
    assert.ok(
      warnings.some((warning) => warning.startsWith('attestation/options: INVALID_USERNAME: ')),
      warnings.join('\n'),
    );
  });
});
