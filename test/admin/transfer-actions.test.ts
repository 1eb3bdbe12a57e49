// The admin actions that move passkeys (src/admin/transfer-actions.ts), as the admin API and the CLI call
// them: one audit event per import and per export with the counts, one `credentials.imported` webhook
// event per real import (none for a dry run), an application that runs only the local variant refused as a
// whole, an unknown format named, an export streamed page by page and imported back unchanged.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog } from '../../src/audit/index.js';
import { AdminActions } from '../../src/admin/actions.js';
import type { AdminError } from '../../src/admin/errors.js';
import { seedApplications } from '../../src/applications/directory.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';
import { applicationConfig } from '../support/harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { exportedPasskey, jsonLines } from '../support/imported-sign-in.js';

const ACTOR = { name: 'cli:test' };
const SECRET = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;

function stack() {
  const runtime = testRuntime();
  const credentials = new MemoryCredentialStore();
  const auditStore = new MemoryAuditStore();
  const applications = new MemoryApplicationStore();
  const actions = new AdminActions({
    applications,
    credentials,
    audit: new AuditLog(auditStore, runtime, captureLog()),
    runtime,
    userHandleKey: Buffer.alloc(32, 7),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  const seed = () =>
    seedApplications(
      applications,
      [
        applicationConfig({
          clientId: 'app-1',
          webhooks: [{ url: 'https://hooks.example.org/passkeys', secret: SECRET }],
        }),
        applicationConfig({ clientId: 'app-2' }),
        applicationConfig({ clientId: 'limited', maxPasskeysPerUser: 2 }),
        applicationConfig({ clientId: 'local-only', variants: ['local'], origins: [] }),
      ],
      runtime.now(),
    );
  const audited = async (action: string) =>
    (await auditStore.query({ limit: 100, action })).map((e) => ({ result: e.result, details: e.details }));
  return { actions, credentials, seed, audited, runtime };
}

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const chunk of chunks) all += chunk;
  return all;
}

describe('admin actions: import and export', () => {
  it('audits each import with its counts and sends one credentials.imported event for a real run only', async () => {
    const { actions, credentials, seed, audited, runtime } = stack();
    await seed();
    const file = jsonLines([exportedPasskey('ann', -7).line, exportedPasskey('bob', -8).line, 'not json']);
    const dry = await actions.importCredentials(ACTOR, 'app-1', {
      format: 'passkey-server',
      input: bytes(file),
      dryRun: true,
    });
    assert.deepEqual([dry.imported, dry.refused.length, dry.dryRun], [2, 1, true]);
    const progress: number[] = [];
    const real = await actions.importCredentials(ACTOR, 'app-1', {
      format: 'passkey-server',
      input: bytes(file),
      dryRun: false,
      onProgress: (p) => progress.push(p.read),
    });
    assert.deepEqual([real.imported, real.skipped, real.refused.length, real.dryRun], [2, 0, 1, false]);
    assert.deepEqual(progress.at(-1), 3);
    assert.deepEqual(await audited('credential.import'), [
      { result: 'ok', details: { format: 'passkey-server', dryRun: true, imported: 2, skipped: 0, refused: 1 } },
      { result: 'ok', details: { format: 'passkey-server', dryRun: false, imported: 2, skipped: 0, refused: 1 } },
    ]);
    const messages = await credentials.outbox.lease('test', runtime.now() + 1000, 60_000, 100);
    assert.deepEqual(
      messages.map((m) => [m.type, JSON.parse(m.body).data]),
      [['credentials.imported', { clientId: 'app-1', format: 'passkey-server', imported: 2, skipped: 0, refused: 1 }]],
    );
  });

  it("refuses the records past the application's maxPasskeysPerUser: PASSKEY_LIMIT_REACHED, not stored (issue 35)", async () => {
    const { actions, credentials, seed } = stack();
    await seed();
    const first = exportedPasskey('cat', -7);
    const same = (i: number) => ({
      ...exportedPasskey('cat', -7).line,
      userHandle: first.line.userHandle,
      name: `#${i}`,
    });
    const file = jsonLines([first.line, same(2), same(3), exportedPasskey('dan', -7).line]);
    const report = await actions.importCredentials(ACTOR, 'limited', {
      format: 'passkey-server',
      input: bytes(file),
      dryRun: false,
    });
    assert.deepEqual(
      [report.imported, report.refused.map((r) => [r.line, r.reason])],
      [3, [[3, 'PASSKEY_LIMIT_REACHED']]],
    );
    assert.equal((await credentials.listByUser('limited', String(first.line.userHandle))).length, 2);
  });

  it('refuses a local-only application, an unknown format and an unknown application as a whole, audited', async () => {
    const { actions, seed, audited } = stack();
    await seed();
    const attempt = (clientId: string, format: string) =>
      actions.importCredentials(ACTOR, clientId, { format, input: bytes(''), dryRun: false });
    await assert.rejects(
      attempt('local-only', 'passkey-server'),
      (e: AdminError) => e.code === 'APPLICATION_LOCAL_ONLY',
    );
    await assert.rejects(attempt('app-1', 'csv'), (e: AdminError) => {
      assert.equal(e.code, 'INVALID_REQUEST');
      assert.match(e.problems![0]!, /^from: one of passkey-server/);
      return true;
    });
    await assert.rejects(attempt('nope', 'passkey-server'), (e: AdminError) => e.code === 'APPLICATION_NOT_FOUND');
    assert.deepEqual(
      (await audited('credential.import')).map((e) => e.result),
      ['failed', 'failed', 'failed'],
    );
  });

  it('exports in pages, audited with the count; the export imports unchanged into another application', async () => {
    const { actions, seed, audited } = stack();
    await seed();
    const passkeys = Array.from({ length: 5 }, (_, i) => exportedPasskey(`user${i}`, -7, i));
    await actions.importCredentials(ACTOR, 'app-1', {
      format: 'passkey-server',
      input: bytes(jsonLines(passkeys.map((p) => p.line))),
      dryRun: false,
    });
    const exported = await text(actions.exportCredentials(ACTOR, 'app-1', 'passkey-server'));
    const lines = exported
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 5);
    assert.deepEqual(
      lines.map((l) => l.credentialId),
      passkeys.map((p) => p.line.credentialId).sort(),
    );
    assert.deepEqual(lines[0].attestation, { format: 'imported', type: 'none', trusted: false });
    const back = await actions.importCredentials(ACTOR, 'app-2', {
      format: 'passkey-server',
      input: bytes(exported),
      dryRun: false,
    });
    assert.deepEqual(back, { imported: 5, skipped: 0, refused: [], dryRun: false });
    assert.equal(await text(actions.exportCredentials(ACTOR, 'app-2', 'passkey-server')), exported);

    await assert.rejects(text(actions.exportCredentials(ACTOR, 'app-1', 'xml')), (e: AdminError) => {
      assert.equal(e.code, 'INVALID_REQUEST');
      return true;
    });
    await assert.rejects(text(actions.exportCredentials(ACTOR, 'nope', 'passkey-server')), (e: AdminError) => {
      assert.equal(e.code, 'APPLICATION_NOT_FOUND');
      return true;
    });
    assert.deepEqual(await audited('credential.export'), [
      { result: 'ok', details: { format: 'passkey-server', exported: 5, complete: true } },
      { result: 'ok', details: { format: 'passkey-server', exported: 5, complete: true } },
      { result: 'failed', details: { format: 'xml', exported: 0, complete: false } },
      { result: 'failed', details: { format: 'passkey-server', exported: 0, complete: false } },
    ]);
  });
});
