// The admin console's webhook sections in Debian's Chromium, against the real service (in process, SQLite,
// real sockets, real webhook receivers): an application's webhooks (the config file's shown as such; one
// added, its signing secret shown once; changed; deleted after a confirmation), its dead letters (an event
// the receiver refused, sent again from the page and then delivered with the same webhook-id) and the
// passkeys of an authenticator model a metadata reload marked compromised. The page raises no CSP
// violation. The screenshot of docs/admin.md is taken here (test-output/console/).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consolePage, openApplication } from './console-support.js';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startService, type RunningService } from '../../src/main.js';
import { launchChromium, OUTPUT } from '../browser/support.js';
import { runCliCommand } from '../support/cli-process.js';
import { tempDir, writeFile } from '../config/support.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { eventually, metadataFixture, MODEL_AAGUID, ModelUser, outcome } from '../e2e/metadata-support.js';
import { CLIENT_ID } from '../scale/support/service.js';

const SHOTS = join(OUTPUT, '..', 'console');
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const STATUS = 'USER_KEY_REMOTE_COMPROMISE';
const sink = { write: () => true };

describe('the console’s webhooks, dead letters and marked passkeys in Chromium', () => {
  let running: RunningService;
  let token: string;
  let browser: Browser;
  let fromFile: Receiver;
  let added: Receiver;
  const user = new ModelUser('alice');
  const violations: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The config file's webhook refuses everything at first: with one attempt, its event is a dead letter.
    fromFile = await startReceiver(SECRET, 'fail');
    added = await startReceiver('whsec_unknown');
    const dir = tempDir('passkey-console-hooks-');
    const fixture = metadataFixture(dir);
    const [application] = fixture.applications as [Record<string, unknown>];
    // Without enforceStatusAtAuthentication: the marked passkey is flagged, not refused.
    const { enforceStatusAtAuthentication: _, ...attestation } = application.attestation as Record<string, unknown>;
    const config = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 0 },
      local: { enabled: false },
      admin: { port: 0 },
      dataDir: join(dir, 'data'),
      webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, maxAttempts: 1, timeoutMs: 2000 },
      applications: [
        {
          ...application,
          attestation,
          webhooks: [{ url: fromFile.url, secret: SECRET, events: ['credential.created'] }],
        },
      ],
    });
    const made = await runCliCommand(['admin', 'token', 'create', 'console-hooks', '--config', config], { cwd: dir });
    token = (JSON.parse(made.stdout) as { token: string }).token;
    running = await startService({ configFile: config, env: {}, cwd: dir, stdout: sink, stderr: sink });

    assert.equal(outcome(await user.register(running.url)), 'ok');
    // The newer BLOB reports the model compromised; the reload marks the stored passkey.
    copyFileSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
    assert.equal((await running.reloadMetadata()).ok, true);
    assert.ok(
      await eventually(async () => (await deadLetters()).length === 1, 15_000),
      'the refused credential.created is a dead letter',
    );
    browser = await launchChromium('MAP nothing.invalid 127.0.0.1');
  });

  after(async () => {
    await browser?.close();
    await running?.close();
    await fromFile?.close();
    await added?.close();
  });

  async function adminGet(path: string): Promise<any> {
    const res = await fetch(`${running.adminUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return res.json();
  }
  const deadLetters = async () => (await adminGet('/admin/webhooks/dead-letters')).deadLetters as unknown[];

  it('adds, edits and deletes a webhook; sends a dead letter again; lists the marked passkey', async () => {
    const page = await consolePage(browser, violations, { height: 800, timeoutMs: 10_000 });
    await openApplication(page, running.adminUrl!, token, 'Metadata reload test');

    // Webhooks: the config file's, which the page does not offer to change.
    const hooks = page.locator('#webhooks');
    await hooks.getByRole('table').waitFor();
    const fileRow = hooks.locator('tbody tr').filter({ hasText: fromFile.url });
    assert.match((await fileRow.textContent()) ?? '', /credential\.created.*config.*in the config file/);
    assert.equal(await fileRow.getByRole('button').count(), 0);

    // Added: the signing secret shown once.
    await page.getByLabel('URL', { exact: true }).fill(added.url);
    await page.getByLabel('Events', { exact: true }).fill('credential.deleted, user.deleted');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.locator('#webhooks .once code.secret');
    await secret.waitFor();
    assert.match((await secret.textContent()) ?? '', /^whsec_/);
    const addedRow = page.locator('#webhooks tbody tr').filter({ hasText: added.url });
    assert.match((await addedRow.textContent()) ?? '', /credential\.deleted, user\.deleted.*admin/);
    const listed = (await adminGet(`/admin/applications/${CLIENT_ID}/webhooks`)).webhooks;
    assert.deepEqual(listed[1].events, ['credential.deleted', 'user.deleted']);

    // Edited: every event type.
    await addedRow.getByRole('button', { name: 'Edit' }).click();
    assert.equal(await page.getByLabel('URL', { exact: true }).inputValue(), added.url);
    await page.getByLabel('Events', { exact: true }).fill('all');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook saved.').waitFor();
    await page.locator('#webhooks tbody tr').filter({ hasText: added.url }).filter({ hasText: 'all events' }).waitFor();
    assert.equal((await adminGet(`/admin/applications/${CLIENT_ID}/webhooks`)).webhooks[1].events, null);
    assert.equal(await page.locator('#webhooks .once').count(), 0, 'the secret is gone once the page changed');

    // Dead letters: the refused event, sent again from the page, is delivered with the same id.
    const letters = page.locator('#dead-letters');
    const letter = letters.locator('tbody tr').filter({ hasText: 'credential.created' });
    await letter.waitFor();
    assert.match((await letter.textContent()) ?? '', /credential\.created\s*1\s*HTTP 503/);
    // Marked passkeys: the user's, with the model and the status.
    const marked = page.locator('#marked-credentials tbody tr');
    await marked.first().waitFor();
    const markedText = (await marked.first().textContent()) ?? '';
    assert.ok(markedText.includes(user.username) && markedText.includes(MODEL_AAGUID), markedText);
    assert.match(markedText, new RegExp(STATUS));
    await page.screenshot({ path: join(SHOTS, 'console-webhooks.png'), fullPage: true });

    const [{ id }] = (await deadLetters()) as [{ id: string }];
    fromFile.mode = 'accept';
    await letter.getByRole('button', { name: 'Send again' }).click();
    await page.getByText(`Event ${id} queued again.`).waitFor();
    await page.getByText('None: every event was delivered.').waitFor();
    assert.ok(await eventually(() => fromFile.accepted.length === 1, 10_000), 'delivered after the resend');
    assert.equal(fromFile.accepted[0]!.id, id);
    assert.ok(fromFile.accepted[0]!.verified);

    // Deleted, after the confirmation (cancelled first: still there).
    const again = page.locator('#webhooks tbody tr').filter({ hasText: added.url });
    await again.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await adminGet(`/admin/applications/${CLIENT_ID}/webhooks`)).webhooks.length, 2);
    await again.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('Webhook deleted.').waitFor();
    assert.equal((await adminGet(`/admin/applications/${CLIENT_ID}/webhooks`)).webhooks.length, 1);
    await page.waitForFunction(() => document.querySelectorAll('#webhooks tbody tr').length === 1);
    await page.context().close();
    assert.deepEqual(violations, [], 'no CSP violation');
  });
});
