// The import command's progress line (src/admin/transfer-cli.ts): on standard error only when it is a
// terminal, the report alone on standard output either way.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../src/audit/index.js';
import { AdminActions } from '../../src/admin/actions.js';
import { runAdminCli } from '../../src/admin/cli.js';
import { seedApplications } from '../../src/applications/directory.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';
import { applicationConfig } from '../support/harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { exportedPasskey, jsonLines } from '../support/imported-sign-in.js';

async function runImport(isTTY: boolean) {
  const runtime = testRuntime();
  const applications = new MemoryApplicationStore();
  await seedApplications(applications, [applicationConfig({ clientId: 'app-1' })], runtime.now());
  const audit = new AuditLog(new MemoryAuditStore(), runtime, captureLog());
  const actions = new AdminActions({
    applications,
    credentials: new MemoryCredentialStore(),
    audit,
    runtime,
    userHandleKey: Buffer.alloc(32, 1),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  const dir = mkdtempSync(join(tmpdir(), 'passkey-import-'));
  writeFileSync(join(dir, 'in.jsonl'), jsonLines([exportedPasskey('ann', -7).line]));
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(
    ['credential', 'import', 'app-1', '--from', 'passkey-server', 'in.jsonl'],
    {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t), isTTY },
      cwd: dir,
    },
    {
      tokens: async () => assert.fail('no token store needed'),
      open: async () => ({ actions, audit, relaySecrets: undefined as never, close: async () => {} }),
      actor: 'cli:test',
    },
  );
  return { code, stdout, stderr };
}

describe('admin CLI: the import progress line', () => {
  it('is written to a terminal, after each batch, ending with a newline', async () => {
    const { code, stdout, stderr } = await runImport(true);
    assert.equal(code, 0);
    assert.equal(stderr, '\rread 1: imported 1, skipped 0, refused 0\rread 1: imported 1, skipped 0, refused 0\n');
    assert.deepEqual(JSON.parse(stdout), { imported: 1, skipped: 0, refused: [], dryRun: false });
  });

  it('is not written when standard error is not a terminal', async () => {
    const { code, stdout, stderr } = await runImport(false);
    assert.equal(code, 0);
    assert.equal(stderr, '');
    assert.equal(JSON.parse(stdout).imported, 1);
  });
});
