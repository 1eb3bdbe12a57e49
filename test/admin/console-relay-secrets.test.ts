// The console's relay-secret section in Debian's Chromium, against the real service (in process, SQLite,
// real sockets): an application's page lists the config file's secret (no Revoke button) and creates one,
// whose secret is shown once (gone when the page is shown again) and works for the relay; its "last used"
// appears after a relay call; Revoke asks first (Cancel keeps it), then the relay is refused with it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consolePage, openApplication } from './console-support.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { startService, type RunningService } from '../../src/main.js';
import { launchChromium, OUTPUT } from '../browser/support.js';
import { runCliCommand } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';

const FILE_SECRET = 'prs_the-config-files-own-secret-for-the-console';
const SHOTS = join(OUTPUT, '..', 'console');
const sink = { write: () => true };

/** A relay call (registration options of app-1) with `secret` as the bearer: the error name, or "ok". */
async function relayCall(url: string, secret: string): Promise<string> {
  const response = await fetch(`${url}/api/attestation/options`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Vendor AppID: app-1',
      origin: 'https://idp.example.test',
      authorization: `Bearer ${secret}`,
    },
    body: JSON.stringify({ username: 'alice#idp.example.test', displayName: 'Alice' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { status: string; errorMessage?: string[] };
  return body.errorMessage?.[0] ?? body.status;
}

describe("the console's relay secrets in Chromium", () => {
  let running: RunningService;
  let token: string;
  let browser: Browser;
  const violations: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const { dir, file } = configDir(
      {
        local: { enabled: false },
        admin: { port: 0 },
        applications: [minimalApp({ relaySecrets: [relaySecretHash(FILE_SECRET)] })],
      },
      'passkey-console-secrets-',
    );
    const made = await runCliCommand(['admin', 'token', 'create', 'console-test', '--config', file], { cwd: dir });
    token = (JSON.parse(made.stdout) as { token: string }).token;
    running = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
    browser = await launchChromium('MAP nothing.invalid 127.0.0.1');
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  async function applicationPage(): Promise<Page> {
    const page = await consolePage(browser, violations, { height: 900, timeoutMs: 10_000 });
    await openApplication(page, running.adminUrl!, token, 'App One');
    await page.getByRole('heading', { name: 'Relay secrets' }).waitFor();
    return page;
  }

  it('creates a secret shown once, shows its last use, revokes it after the confirmation', async () => {
    const page = await applicationPage();
    const section = page.locator('#relay-secrets');
    const rows = section.locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1, "the config file's secret");
    assert.match((await rows.first().textContent()) ?? '', /cfg_[0-9a-f]{24}config/);
    assert.equal(await rows.first().getByRole('button', { name: 'Revoke' }).count(), 0, 'not revocable here');

    await section.getByRole('button', { name: 'Create a relay secret' }).click();
    const once = page.locator('#relay-secrets .once');
    await once.waitFor();
    const secret = ((await once.locator('code.secret').textContent()) ?? '').trim();
    assert.match(secret, /^prs_[A-Za-z0-9_-]{43}$/);
    assert.match((await once.textContent()) ?? '', /shown once/);
    await page.locator('#relay-secrets tbody tr').nth(1).waitFor();
    const created = page.locator('#relay-secrets tbody tr').filter({ hasText: 'admin' });
    const id = ((await created.locator('code').textContent()) ?? '').trim();
    assert.match(id, /^rs_[0-9a-f]{24}$/);
    assert.equal((await created.locator('td').nth(3).textContent())?.trim(), '—', 'never used yet');
    await page.screenshot({ path: join(SHOTS, 'console-relay-secrets.png'), fullPage: true });

    assert.equal(await relayCall(running.url, secret), 'ok', 'the relay works with it');

    // Shown again (another visit of the page): the secret is gone from it, its last use is there.
    await page.getByRole('link', { name: '← Applications' }).click();
    await page.getByRole('link', { name: 'App One' }).click();
    const again = page.locator('#relay-secrets tbody tr').filter({ hasText: id });
    await again.waitFor();
    assert.notEqual((await again.locator('td').nth(3).textContent())?.trim(), '—', 'last used shown');
    assert.equal(await page.locator('#relay-secrets .once').count(), 0);
    assert.ok(!((await page.content()) ?? '').includes(secret), 'shown once only');

    // Cancel keeps it; Revoke (confirmed) removes it and the relay is refused with it.
    await again.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.locator('#relay-secrets tbody tr').count(), 2);
    assert.equal(await relayCall(running.url, secret), 'ok');
    await again.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(`Revoked relay secret ${id}.`).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#relay-secrets tbody tr').length === 1);
    assert.equal(await relayCall(running.url, secret), 'RELAY_SECRET_INVALID');
    assert.equal(await relayCall(running.url, FILE_SECRET), 'ok');

    const audit = await fetch(`${running.adminUrl}/admin/audit?action=relay-secret.`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const events = ((await audit.json()) as { events: { actor: string; action: string; result: string }[] }).events;
    assert.deepEqual(
      events.map((e) => [e.actor, e.action, e.result]),
      [
        ['admin:console-test', 'relay-secret.create', 'ok'],
        ['admin:console-test', 'relay-secret.revoke', 'ok'],
      ],
    );
    await page.context().close();
    assert.deepEqual(violations, [], 'no CSP violation');
  });
});
