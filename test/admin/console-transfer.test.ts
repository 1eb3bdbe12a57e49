// The console's "Import passkeys" and "Export passkeys" in Debian's Chromium, against the real service (in
// process, SQLite, real sockets): a file chosen with its format; the real run is offered only after a dry run
// of that file, whose report (refused lines with their reason) is shown and which writes nothing; the real
// run's report, its progress bar full, and the imported passkeys sign in; the export is a download of every
// passkey in JSON Lines. The page raises no CSP violation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consolePage, openApplication } from './console-support.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startService, type RunningService } from '../../src/main.js';
import { launchChromium, OUTPUT } from '../browser/support.js';
import { runCliCommand } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';
import { exportedPasskey, jsonLines, signIn } from '../support/imported-sign-in.js';

const SHOTS = join(OUTPUT, '..', 'console');
const sink = { write: () => true };

describe("the console's passkey import and export in Chromium", () => {
  let running: RunningService;
  let token: string;
  let browser: Browser;
  let dir: string;
  const violations: string[] = [];
  const passkeys = [exportedPasskey('ann', -7, 5), exportedPasskey('bob', -8)];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const made = configDir(
      { local: { enabled: false }, admin: { port: 0 }, applications: [minimalApp({ algorithms: [-7, -8] })] },
      'passkey-console-transfer-',
    );
    dir = made.dir;
    const created = await runCliCommand(['admin', 'token', 'create', 'console-test', '--config', made.file], {
      cwd: dir,
    });
    token = (JSON.parse(created.stdout) as { token: string }).token;
    running = await startService({ configFile: made.file, env: {}, cwd: dir, stdout: sink, stderr: sink });
    browser = await launchChromium('MAP nothing.invalid 127.0.0.1');
  });

  after(async () => {
    await browser?.close();
    await running?.close();
  });

  const stored = async (): Promise<number> => {
    const res = await fetch(`${running.adminUrl}/admin/applications/app-1/credentials?limit=100`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { credentials: unknown[] }).credentials.length;
  };

  it('imports a file (dry run, then for real) with its report, and downloads the export', async () => {
    const file = join(dir, 'passkeys.jsonl');
    writeFileSync(file, jsonLines([passkeys[0]!.line, 'not a record', passkeys[1]!.line]));
    const page = await consolePage(browser, violations, { height: 1000, timeoutMs: 15_000 });
    await openApplication(page, running.adminUrl!, token, 'App One');
    await page.getByRole('heading', { name: 'Import passkeys' }).waitFor();

    const importButton = page.getByRole('button', { name: 'Import', exact: true });
    assert.equal(await importButton.isDisabled(), true, 'no real run before a dry run');
    await page.getByLabel('File', { exact: true }).setInputFiles(file);
    await page.getByLabel('Source format').selectOption('passkey-server');
    await page.getByRole('button', { name: 'Dry run' }).click();
    const summary = page.locator('#import-report .report-summary');
    await summary.filter({ hasText: 'Dry run:' }).waitFor();
    assert.equal(await summary.textContent(), 'Dry run: 2 would be imported, 0 skipped (already stored), 1 refused.');
    const refused = page.locator('#import-report tbody tr');
    assert.equal(await refused.count(), 1);
    assert.deepEqual(await refused.first().locator('td').allTextContents(), [
      '2',
      'MALFORMED_RECORD',
      await refused.first().locator('td').nth(2).textContent(),
    ]);
    assert.equal(await stored(), 0, 'the dry run wrote nothing');
    assert.equal(await importButton.isDisabled(), false);
    await page.screenshot({ path: join(SHOTS, 'console-import-dry-run.png'), fullPage: true });

    await importButton.click();
    await summary.filter({ hasText: /^2 imported/ }).waitFor();
    assert.equal(await summary.textContent(), '2 imported, 0 skipped (already stored), 1 refused.');
    assert.equal(await page.locator('#import-progress').evaluate((p) => (p as HTMLProgressElement).value), 1);
    assert.equal(await importButton.isDisabled(), true, 'another real run needs another dry run');
    assert.equal(await stored(), 2);
    for (const { held, user } of passkeys) {
      const signedIn = await signIn(running.url, held, `${user}#idp.example.test`);
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    }

    await page.getByLabel('Format', { exact: true }).selectOption('passkey-server');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'app-1-passkeys.jsonl');
    const saved = join(dir, 'downloaded.jsonl');
    await download.saveAs(saved);
    const lines = readFileSync(saved, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { credentialId: string; username: string });
    assert.deepEqual(lines.map((l) => l.credentialId).sort(), passkeys.map((p) => p.held.credentialId).sort());
    await page.getByText('Exported to app-1-passkeys.jsonl.').waitFor();
    await page.context().close();
    assert.deepEqual(violations, [], 'no CSP violation');
  });
});
