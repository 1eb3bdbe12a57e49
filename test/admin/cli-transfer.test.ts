// `passkey-server admin credential import|export` (issue 34, docs/migration.md) against a real service: passkeys
// an authenticator already holds (ES256, RS256, EdDSA, ML-DSA-44), written in the passkey-server format,
// imported by the CLI as a child process on the service's SQLite file while it runs, then signed in with over
// its socket by name and without a name; the counter goes on; the same file again is all skipped; an export
// imported into an empty instance signs in there too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { minimalApp } from '../config/support.js';
import { runCliCommand, startServe, type ServeProcess } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { exportedPasskey, jsonLines, signIn } from '../support/imported-sign-in.js';

const APP = minimalApp({ algorithms: [-7, -257, -8, -48] });

describe('admin CLI: credential import and export, on a running service', () => {
  const first = configDir({ local: { enabled: false }, applications: [APP] });
  const second = configDir({ local: { enabled: false }, applications: [APP] });
  const admin = (config: { dir: string; file: string }, ...args: string[]) =>
    runCliCommand(['admin', ...args, '--config', config.file], { cwd: config.dir });
  const passkeys = [
    exportedPasskey('ann', -7, 41),
    exportedPasskey('bob#idp.example.test', -257, 7),
    exportedPasskey('carol', -8),
    exportedPasskey('dave', -48, 3),
  ];
  let served: ServeProcess;
  let other: ServeProcess;
  before(async () => {
    writeFileSync(join(first.dir, 'passkeys.jsonl'), jsonLines(passkeys.map((p) => p.line)));
    served = await startServe(['--config', first.file], { cwd: first.dir });
  });
  after(async () => {
    await served?.stop();
    await other?.stop();
  });

  it('imports every algorithm; each passkey signs in by name and without a name; the counter goes on', async () => {
    const dry = await admin(
      first,
      'credential',
      'import',
      'app-1',
      '--from',
      'passkey-server',
      'passkeys.jsonl',
      '--dry-run',
    );
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(JSON.parse(dry.stdout), { imported: 4, skipped: 0, refused: [], dryRun: true });
    assert.equal(dry.stderr, '', 'no progress line when standard error is not a terminal');

    const run = await admin(first, 'credential', 'import', 'app-1', '--from', 'passkey-server', 'passkeys.jsonl');
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { imported: 4, skipped: 0, refused: [], dryRun: false });

    for (const { held, user, line } of passkeys) {
      const name = user.includes('#') ? user : `${user}#idp.example.test`;
      const byName = await signIn(served.url, held, name);
      assert.equal(byName.status, 200, JSON.stringify(byName.body));
      assert.equal(byName.body.userHandle, held.userHandle);
      assert.equal(byName.body.signCount, (line.signCount as number) + 1);
      const nameless = await signIn(served.url, held, null);
      assert.equal(nameless.status, 200, JSON.stringify(nameless.body));
      assert.equal(nameless.body.username, name);
    }
    // ann's counter is 43 now: an assertion at or below it fails.
    const stale = await signIn(served.url, passkeys[0]!.held, 'ann#idp.example.test', { signCount: 43 });
    assert.equal(stale.body.errorMessage[0], 'SIGNATURE_COUNTER_NOT_INCREASED');

    const again = await admin(first, 'credential', 'import', 'app-1', '--from', 'passkey-server', 'passkeys.jsonl');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { imported: 0, skipped: 4, refused: [], dryRun: false });
  });

  it('an export imported into an empty instance signs in there, every passkey', async () => {
    const exported = await admin(first, 'credential', 'export', 'app-1', '--output', join(second.dir, 'export.jsonl'));
    assert.equal(exported.code, 0, exported.stderr);
    const toStdout = await admin(first, 'credential', 'export', 'app-1', '--to', 'passkey-server');
    assert.equal(toStdout.code, 0, toStdout.stderr);
    assert.equal(toStdout.stdout.trim().split('\n').length, 4);

    const run = await admin(second, 'credential', 'import', 'app-1', '--from', 'passkey-server', 'export.jsonl');
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { imported: 4, skipped: 0, refused: [], dryRun: false });
    other = await startServe(['--config', second.file], { cwd: second.dir });
    for (const { held, user } of passkeys) {
      const name = user.includes('#') ? user : `${user}#idp.example.test`;
      const byName = await signIn(other.url, held, name);
      assert.equal(byName.status, 200, JSON.stringify(byName.body));
      const nameless = await signIn(other.url, held, null);
      assert.equal(nameless.status, 200, JSON.stringify(nameless.body));
    }
  });
});
