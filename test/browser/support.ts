// What the browser tests need around Chromium: the real service as a child process, free ports, the
// headless browser with the flags this machine needs, CDP virtual authenticators, small byte helpers.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startServe } from '../support/cli-process.js';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root: compiled tests live in .build-<name>/test/browser/. */
export const REPO = resolve(here, '..', '..', '..');
export const OUTPUT = join(REPO, 'test-output', 'browser');
export const CHROMIUM = '/usr/bin/chromium';

export { freePort };

export interface ServiceProcess {
  readonly url: string;
  /** Everything the service wrote, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

/** Starts `cli/bin.js serve --config <file>` (test/support/cli-process.ts) and waits (bounded) until it listens on `port`. */
export async function startServiceProcess(
  dir: string,
  config: Record<string, unknown>,
  port: number,
): Promise<ServiceProcess> {
  const file = join(dir, 'service.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  const served = await startServe(['--config', file], { cwd: dir, env: { NODE_ENV: 'test' }, startWithinMs: 20_000 });
  if (served.port !== port) {
    await served.stop('SIGKILL');
    throw new Error(`the service listens on ${served.url}, not on port ${port}:\n${served.output()}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => served.output(),
    close: async () => {
      await served.stop('SIGTERM', 5_000);
    },
  };
}

/**
 * The service as the browser tests of apps run it: its own process on a free port, a SQLite file in `dir`,
 * challenges in memory, no demo, and the given applications (`extra` adds or replaces top-level keys).
 */
export async function startAppService(
  dir: string,
  applications: readonly Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const config = {
    listen: { host: '127.0.0.1', port },
    database: `sqlite:${join(dir, 'fido2.db')}`,
    challenges: 'memory',
    demo: { enabled: false },
    dataDir: dir,
    applications,
    ...extra,
  };
  return startServiceProcess(dir, config, port);
}

/** Headless Debian Chromium. `resolverRules` maps test hostnames (and localhost:443) onto the demo. */
export function launchChromium(resolverRules: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--ignore-certificate-errors',
      `--host-resolver-rules=${resolverRules}`,
    ],
  });
}

export type AuthenticatorKind = 'platform' | 'roaming';

export const AUTHENTICATORS: Record<AuthenticatorKind, Record<string, unknown>> = {
  // A phone or laptop: CTAP2, built in, discoverable credentials, user verification.
  platform: {
    protocol: 'ctap2',
    transport: 'internal',
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    automaticPresenceSimulation: true,
  },
  // A U2F security key: no discoverable credentials, no user verification.
  roaming: {
    protocol: 'u2f',
    transport: 'usb',
    hasResidentKey: false,
    hasUserVerification: false,
    automaticPresenceSimulation: true,
  },
};

export interface VirtualCredential {
  readonly credentialId: string;
  readonly signCount: number;
  readonly rpId: string;
}

export interface BrowserTab {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  authenticatorId: string | undefined;
  credentials(): Promise<VirtualCredential[]>;
  close(): Promise<void>;
}

/** A fresh context (own cookies) with the CDP virtual-authenticator environment on, and optionally one authenticator. */
export async function openTab(browser: Browser, kind: AuthenticatorKind | null): Promise<BrowserTab> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(15_000);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  let authenticatorId: string | undefined;
  if (kind !== null) {
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: AUTHENTICATORS[kind] as never,
    }));
  }
  const tab: BrowserTab = {
    context,
    page,
    cdp,
    authenticatorId,
    credentials: async () => {
      if (tab.authenticatorId === undefined) return [];
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId: tab.authenticatorId });
      return credentials.map((c) => ({ credentialId: c.credentialId, signCount: c.signCount, rpId: c.rpId ?? '' }));
    },
    close: () => context.close(),
  };
  return tab;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true, timeout: 10_000 });
  return path;
}

/** The signature counter inside authenticatorData (bytes 33–36, big-endian). */
export function signCountOf(authenticatorData: string): number {
  return Buffer.from(authenticatorData, 'base64url').readUInt32BE(33);
}

/** The `fmt` of an attestation object (CTAP2 canonical CBOR puts `fmt`, the shortest key, first). */
export function attestationFormatOf(attestationObject: string): string {
  const bytes = Buffer.from(attestationObject, 'base64url');
  const fmtKey = Buffer.from([0x63, 0x66, 0x6d, 0x74]); // text(3) "fmt"
  const at = bytes.indexOf(fmtKey);
  if (at < 0) throw new Error('no fmt in the attestation object');
  const header = bytes[at + 4]!;
  if (header < 0x60 || header > 0x77) throw new Error('fmt is not a short text string');
  return bytes.subarray(at + 5, at + 5 + (header - 0x60)).toString('utf8');
}
