// What every demo-page browser test sets up: the real service process, the demo (through the relay) and
// headless Chromium, plus the page helpers that drive the demo's own buttons and record what it sends.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { startDemo, type RunningDemo } from '@passkey-server/demo';
import { builtInConfig } from '../../src/config/load.js';
import {
  freePort,
  launchChromium,
  openTab,
  startServiceProcess,
  type AuthenticatorKind,
  type BrowserTab,
  type ServiceProcess,
} from './support.js';

export const CLIENT_ID = 'demo-client';
export const DOMAIN = 'demo.localhost';
export type Variant = 'standard' | 'local';

export interface DemoWorld {
  readonly dir: string;
  readonly service: ServiceProcess;
  readonly demo: RunningDemo;
  readonly browser: Browser;
  readonly demoPort: number;
  /** The developer bench's address in a variant (every option of the ceremonies, raw answers). */
  url(variant: Variant): string;
  /** The login page's address in a variant (built on the browser package's elements). */
  home(variant: Variant): string;
  /** The full user name of `user` in a variant. */
  username(user: string, variant: Variant): string;
  /** A fresh browser context (own cookies) with the virtual-authenticator environment, closed by `close()`. */
  tab(kind: AuthenticatorKind | null): Promise<BrowserTab>;
  close(): Promise<void>;
}

/**
 * Service (SQLite, both variants), demo and Chromium. The application lists app.test as a development
 * hostname of the local variant; unlisted.test is one it does not list.
 */
export async function startDemoWorld(): Promise<DemoWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'passkey-browser-'));
  // What started so far, stopped if a later step fails (Chromium missing, say): a service or demo left
  // running would keep the test file alive until its timeout instead of failing it at once.
  const started: Array<() => Promise<void>> = [async () => rm(dir, { recursive: true, force: true })];
  try {
    return await startWorldIn(dir, started);
  } catch (error) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw error;
  }
}

async function startWorldIn(dir: string, started: Array<() => Promise<void>>): Promise<DemoWorld> {
  const servicePort = await freePort();
  const demoPort = await freePort();
  const service = await startServiceProcess(
    dir,
    {
      listen: { host: '127.0.0.1', port: servicePort },
      database: `sqlite:${join(dir, 'fido2.db')}`,
      challenges: 'memory',
      local: { enabled: true },
      demo: { enabled: false, host: '127.0.0.1', port: demoPort },
      dataDir: dir,
      applications: [
        {
          clientId: CLIENT_ID,
          name: 'Demo IdP',
          domain: DOMAIN,
          origins: [`https://${DOMAIN}:${demoPort}`],
          variants: ['standard', 'local'],
          localOrigins: [`https://localhost:${demoPort}`, `https://app.test:${demoPort}`],
          // What the built-in demo application offers: ML-DSA after the classical algorithms (issue 25).
          algorithms: (builtInConfig().applications as Array<{ algorithms: number[] }>)[0]!.algorithms,
        },
      ],
    },
    servicePort,
  );
  started.push(() => service.close());
  const demo = await startDemo({
    serviceUrl: service.url,
    clientId: CLIENT_ID,
    vendor: 'Vendor',
    host: '127.0.0.1',
    port: demoPort,
    dataDir: dir,
    standardDomain: DOMAIN,
    devHostnames: ['app.test', 'unlisted.test'],
  });
  started.push(() => demo.close());
  // *.localhost already resolves to loopback; the .test names and https://localhost (port 443, where
  // browsers fetch the related-origins document) are pointed at the demo.
  const browser = await launchChromium(
    `MAP app.test 127.0.0.1, MAP unlisted.test 127.0.0.1, MAP localhost:443 127.0.0.1:${demoPort}`,
  );
  const tabs: BrowserTab[] = [];
  return {
    dir,
    service,
    demo,
    browser,
    demoPort,
    url: (variant) =>
      variant === 'standard' ? `https://${DOMAIN}:${demoPort}/bench.html` : `https://localhost:${demoPort}/bench.html`,
    home: (variant) => (variant === 'standard' ? `https://${DOMAIN}:${demoPort}/` : `https://localhost:${demoPort}/`),
    username: (user, variant) => `${user}#${variant === 'standard' ? DOMAIN : 'localhost'}`,
    tab: async (kind) => {
      const opened = await openTab(browser, kind);
      tabs.push(opened);
      return opened;
    },
    close: async () => {
      for (const opened of tabs) await opened.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await demo.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What the page sent to the relay and what it answered, by relay path (`assertion/options`, …). */
export interface Captured {
  readonly sent: Record<string, Array<Record<string, any>>>;
  readonly answers: Record<string, Array<Record<string, any>>>;
  /** Shorthands of the existing tests. */
  readonly assertions: Array<Record<string, any>>;
  readonly attestations: Array<Record<string, any>>;
  readonly attestationAnswers: Array<Record<string, any>>;
}

const RELAY_PATHS = ['attestation/options', 'attestation/result', 'assertion/options', 'assertion/result'];

export function capture(page: Page): Captured {
  const sent: Captured['sent'] = Object.fromEntries(RELAY_PATHS.map((path) => [path, []]));
  const answers: Captured['answers'] = Object.fromEntries(RELAY_PATHS.map((path) => [path, []]));
  const pathOf = (url: string) => RELAY_PATHS.find((path) => new URL(url).pathname === `/relay/${path}`);
  page.on('request', (request) => {
    const path = pathOf(request.url());
    if (path !== undefined && request.method() === 'POST') sent[path]!.push(JSON.parse(request.postData() ?? '{}'));
  });
  page.on('response', (response) => {
    const path = pathOf(response.url());
    if (path !== undefined)
      response.json().then(
        (body: Record<string, any>) => answers[path]!.push(body),
        () => undefined,
      );
  });
  return {
    sent,
    answers,
    assertions: sent['assertion/result']!,
    attestations: sent['attestation/result']!,
    attestationAnswers: answers['attestation/result']!,
  };
}

export interface Form {
  readonly user: string;
  readonly kind: AuthenticatorKind;
  readonly attestation?: 'none' | 'direct';
}

/** Opens a page and waits until its script has loaded the context (variant, suffix, session). */
export async function open(page: Page, url: string): Promise<Response | null> {
  const response = await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  return response;
}

export async function fill(page: Page, form: Form): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await page.evaluate(() => void ((document.querySelector('details') as HTMLDetailsElement).open = true));
  await page.fill('#username', form.user);
  await page.selectOption('#attachment', form.kind === 'platform' ? 'platform' : 'cross-platform');
  await page.selectOption('#user-verification', form.kind === 'platform' ? 'required' : 'discouraged');
  await page.selectOption('#attestation', form.attestation ?? 'none');
  await page.setChecked('#resident-key', form.kind === 'platform');
}

export type Button = '#register' | '#sign-in' | '#passkey-sign-in' | '#sign-out';

/** Clicks one of the page's buttons and returns the message the page settles on. */
export async function click(page: Page, button: Button): Promise<{ kind: string; text: string }> {
  await page.evaluate(() => {
    const message = document.getElementById('message')!;
    message.dataset.kind = '';
    message.textContent = '';
  });
  await page.click(button);
  return settled(page);
}

/** Waits (bounded) until the page's message is ok or error, and returns it. */
export async function settled(page: Page): Promise<{ kind: string; text: string }> {
  await page.waitForFunction(
    () => ['ok', 'error'].includes(document.getElementById('message')!.dataset.kind ?? ''),
    undefined,
    { timeout: 20_000 },
  );
  return page.evaluate(() => {
    const message = document.getElementById('message')!;
    return { kind: message.dataset.kind ?? '', text: message.textContent ?? '' };
  });
}

/** The state of one of the page's background lines (`#autofill`, `#upgrade`), waiting (bounded) for one of `states`. */
export async function stateOf(page: Page, id: 'autofill' | 'upgrade', states: readonly string[]): Promise<string> {
  await page.waitForFunction(
    ({ id, states }) => states.includes(document.getElementById(id)!.dataset.state ?? ''),
    { id, states },
    { timeout: 15_000 },
  );
  return page.evaluate((id) => document.getElementById(id)!.dataset.state ?? '', id);
}

/** What the signed-in box shows: all of it from the result answer (or the session built from it). */
export async function signedIn(
  page: Page,
): Promise<{ user: string; how: string; credentialId: string; passkey: string; backup: string }> {
  assert.equal(await page.isVisible('#signed-in'), true, 'the signed-in box is shown');
  return page.evaluate(() => {
    const box = document.getElementById('signed-in')!;
    return {
      user: document.getElementById('signed-in-user')!.textContent ?? '',
      how: box.dataset.how ?? '',
      credentialId: box.dataset.credentialId ?? '',
      passkey: document.getElementById('passkey-name')!.textContent ?? '',
      backup: document.getElementById('passkey-backup')!.dataset.backup ?? '',
    };
  });
}

/** The credential id of a CDP virtual credential (base64) as the page and the service write it (base64url). */
export const base64url = (base64: string): string => Buffer.from(base64, 'base64').toString('base64url');
