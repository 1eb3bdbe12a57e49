// The admin console in Debian's Chromium, against the real service (in process, SQLite, real sockets):
// a wrong token is refused; the right one signs in (kept in sessionStorage: no cookie, never in the URL);
// a user is found by the "User name" field with their passkeys (provider, kind, algorithm); one is deleted
// after the confirmation (and not before); the audit log shows it and filters; the overview counts the
// ceremonies. Every answer of /console/ carries the strict CSP, and the page raises no CSP violation.
// The screenshots of docs/admin.md are taken here (test-output/console/).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consolePage } from './console-support.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/main.js';
import { OverviewSchema } from '../../src/schemas/admin.js';
import { ApplicationInputSchema } from '../../src/schemas/applications.js';
import { compile } from '../../src/schemas/typebox.js';
import { launchChromium, OUTPUT } from '../browser/support.js';
import { runCliCommand } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const ORIGIN = 'https://idp.example.test';
const USERNAME = 'alice#idp.example.test';
const SHOTS = join(OUTPUT, '..', 'console');
const sink = { write: () => true };

/** AAGUIDs of the bundled provider list (assets/aaguids/passkey-providers.json). */
const GOOGLE = Buffer.from('ea9b8d664d011d213ce4b6b48cb575d4', 'hex');
const APPLE = Buffer.from('fbfc3007154e4ecc8c0b6e020557d7bd', 'hex');

async function post(url: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Vendor AppID: app-1', origin: ORIGIN },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

async function register(url: string, aaguid: Buffer, synced: boolean): Promise<string> {
  const options = await post(url, '/api/attestation/options', { username: USERNAME, displayName: 'Alice' });
  const credential = new SoftAuthenticator({ origin: ORIGIN }).register(options, {
    aaguid,
    flags: { be: synced, bs: synced },
  });
  await post(url, '/api/attestation/result', credential);
  return credential.id as string;
}

describe('the admin console in Chromium', () => {
  let running: RunningService;
  let adminUrl: string;
  let token: string;
  let browser: Browser;
  const violations: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const { dir, file } = configDir({ local: { enabled: false }, admin: { port: 0 } }, 'passkey-console-');
    const made = await runCliCommand(['admin', 'token', 'create', 'console-test', '--config', file], { cwd: dir });
    token = (JSON.parse(made.stdout) as { token: string }).token;
    running = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
    adminUrl = running.adminUrl!;
    await register(running.url, GOOGLE, true);
    await register(running.url, APPLE, false);
    browser = await launchChromium('MAP nothing.invalid 127.0.0.1');
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  async function openConsole(): Promise<Page> {
    const page = await consolePage(browser, violations, { height: 800, timeoutMs: 10_000 });
    const answer = await page.goto(`${adminUrl}/console/`);
    assert.equal(answer?.status(), 200);
    return page;
  }

  async function signIn(page: Page, value: string): Promise<void> {
    await page.getByLabel('Admin token').fill(value);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('serves the page and its assets under a strict CSP, with no inline script or style', async () => {
    const page = await fetch(`${adminUrl}/console/`);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await page.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /<style|\sstyle=/, 'no inline style');
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 2, `script and style sheet: ${assets}`);
    for (const asset of assets) {
      const answer = await fetch(`${adminUrl}${asset}`);
      assert.equal(answer.status, 200, asset);
      assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    }
    const redirect = await fetch(`${adminUrl}/console`, { redirect: 'manual' });
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.get('location'), '/console/');
    assert.equal((await fetch(`${adminUrl}/console/nope.js`)).status, 404);
  });

  it('refuses a wrong token and keeps the sign-in form', async () => {
    const page = await openConsole();
    await signIn(page, 'pks_admin_wrong-token');
    await page.getByText('The admin token was refused.').waitFor();
    assert.equal(await page.locator('#nav').isVisible(), false);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing kept');
    await page.screenshot({ path: join(SHOTS, 'console-refused.png') });
    await page.context().close();
  });

  it('signs in, finds a user, shows their passkeys, deletes one after confirming, reads the audit log', async () => {
    const page = await openConsole();
    const requests: { url: string; authorization: string | undefined }[] = [];
    page.on('request', (request) =>
      requests.push({ url: request.url(), authorization: request.headers().authorization }),
    );
    await signIn(page, token);
    await page.getByRole('heading', { name: 'Overview: the last hour' }).waitFor();
    const overview = page.locator('table').filter({ hasText: 'app-1' });
    await overview.waitFor();
    assert.deepEqual(
      (await overview.locator('tbody tr').first().locator('td').allTextContents()).slice(0, 4),
      ['app-1', '2', '2', '0'],
      'two registrations started, two results, none failed',
    );
    await page.screenshot({ path: join(SHOTS, 'console-overview.png') });
    const overviewAnswer = await (
      await fetch(`${adminUrl}/admin/overview`, { headers: { authorization: `Bearer ${token}` } })
    ).json();
    assert.deepEqual(compile(OverviewSchema).explain(overviewAnswer), [], 'the answer has its OpenAPI shape');
    assert.equal((await fetch(`${adminUrl}/admin/overview`)).status, 401, 'the overview needs the token');

    // The token: in sessionStorage, sent as a bearer header, never in a URL or a cookie.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('passkey-server.admin-token')), token);
    assert.deepEqual(await page.context().cookies(), []);
    assert.ok(
      requests.every((r) => !r.url.includes(token)),
      'never in a URL',
    );
    assert.ok(requests.some((r) => r.url.endsWith('/admin/overview') && r.authorization === `Bearer ${token}`));

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('User name').fill(USERNAME);
    await page.getByRole('button', { name: 'Find' }).click();
    const rows = page.locator('#user-results tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2);
    const text = (await page.locator('#user-results table').textContent()) ?? '';
    assert.match(text, /Google Password Manager/);
    assert.match(text, /Apple Passwords/);
    assert.match(text, /synced/);
    assert.match(text, /device-bound/);
    assert.match(text, /ES256 \(-7\)/);
    assert.equal(await page.locator('#user-results img[src^="data:image/svg+xml"]').count(), 2, 'provider icons');
    await page.screenshot({ path: join(SHOTS, 'console-user.png'), fullPage: true });

    // Cancel first: nothing is deleted.
    const google = rows.filter({ hasText: 'Google Password Manager' });
    await google.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-confirm.png') });
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await rows.count(), 2);
    await google.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete passkey' }).click();
    await page.getByText(`Deleted the passkey "Google Password Manager" of ${USERNAME}.`).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#user-results tbody tr').length === 1);
    const left = await fetch(
      `${adminUrl}/admin/applications/app-1/credentials?username=${encodeURIComponent(USERNAME)}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const credentials = ((await left.json()) as { credentials: { authenticatorName: string }[] }).credentials;
    assert.deepEqual(
      credentials.map((c) => c.authenticatorName),
      ['Apple Passwords'],
    );

    await page.getByRole('link', { name: 'Audit log' }).click();
    const events = page.locator('#audit-results tbody tr');
    await events.first().waitFor();
    assert.match((await page.locator('#audit-results').textContent()) ?? '', /credential\.delete/);
    await page.getByLabel('Action').fill('credential.delete');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#audit-results tbody tr').length === 1);
    const row = (await events.first().textContent()) ?? '';
    assert.match(row, /admin:console-test/);
    assert.match(row, /credential\.delete/);
    // Paging: two events a page, forward and back, each page its own events in order.
    await page.getByLabel('Action').fill('');
    await page.getByLabel('Per page').fill('2');
    await page.getByRole('button', { name: 'Show' }).click();
    // The filtered result above is a "page 1" too: wait for the new page's two rows, not for its heading.
    await page.waitForFunction(() => document.querySelectorAll('#audit-results tbody tr').length === 2);
    await page.getByText('Audit events, page 1').waitFor();
    const firstPage = await page
      .locator('#audit-results tbody tr time')
      .evaluateAll((t) => t.map((e) => e.getAttribute('datetime')));
    assert.equal(firstPage.length, 2);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Audit events, page 2').waitFor();
    const secondPage = await page
      .locator('#audit-results tbody tr time')
      .evaluateAll((t) => t.map((e) => e.getAttribute('datetime')));
    assert.ok(secondPage.length >= 1 && secondPage.length <= 2);
    assert.ok(secondPage[0]! >= firstPage[1]!, 'the next page goes on from the last one');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Audit events, page 1').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
    await page.getByLabel('Per page').fill('50');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#audit-results tbody tr').length > 2);
    await page.screenshot({ path: join(SHOTS, 'console-audit.png'), fullPage: true });

    // A new application, then its origins and a policy changed in its page.
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByLabel('Domain', { exact: true }).fill('shop.example.test');
    await page.getByLabel('Origins (one per line; none: the local variant only)').fill('https://shop.example.test');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /^Shop app-/ }).waitFor();
    const shopId = decodeURIComponent(new URL(page.url()).hash.split('/')[1]!);
    await page
      .getByLabel('Origins (one per line)', { exact: true })
      .fill('https://shop.example.test\nhttps://www.shop.example.test');
    const policies = JSON.parse(await page.getByLabel(/^Policies/).inputValue());
    // The policy keys are the admin API's application body's (its schema), less those with form fields.
    const bodyKeys = Object.keys(ApplicationInputSchema.properties);
    assert.deepEqual(
      Object.keys(policies).filter((key) => !bodyKeys.includes(key)),
      [],
    );
    assert.ok(
      ['timeoutMs', 'userVerification', 'attestation'].every((key) => key in policies),
      JSON.stringify(policies),
    );
    assert.ok(!('origins' in policies) && !('name' in policies));
    // maxPasskeysPerUser (issue 35) is among the editable keys by the schema alone, with its default.
    assert.equal(policies.maxPasskeysPerUser, 100);
    await page
      .getByLabel(/^Policies/)
      .fill(JSON.stringify({ ...policies, timeoutMs: 120000, maxPasskeysPerUser: 250 }));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Saved ${shopId}.`).waitFor();
    const shop = (await (
      await fetch(`${adminUrl}/admin/applications/${shopId}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { origins: string[]; timeoutMs: number; maxPasskeysPerUser: number; approved: boolean };
    assert.deepEqual(shop.origins, ['https://shop.example.test', 'https://www.shop.example.test']);
    assert.equal(shop.timeoutMs, 120000);
    assert.equal(shop.maxPasskeysPerUser, 250);
    assert.equal(shop.approved, false, 'created unapproved');
    // A key the console has no form field for (added to the schema later) is among the policies by itself.
    const patched = await fetch(`${adminUrl}/admin/applications/${shopId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ addPasskey: 'signed-in' }),
    });
    assert.equal(patched.status, 200);
    await page.reload();
    await page.getByLabel(/^Policies/).waitFor();
    assert.equal(JSON.parse(await page.getByLabel(/^Policies/).inputValue()).addPasskey, 'signed-in');
    await page.getByRole('button', { name: 'Approve standard variant' }).click();
    await page.getByRole('button', { name: 'Withdraw approval' }).waitFor();

    await page.getByRole('link', { name: '← Applications' }).click();
    await page.getByRole('link', { name: 'App One' }).click();
    await page.getByLabel('Origins (one per line)', { exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'console-application.png'), fullPage: true });
    await page.context().close();
    assert.deepEqual(violations, [], 'no CSP violation');
  });
});
