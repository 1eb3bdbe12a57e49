// `metadata check`: verifies or installs a BLOB and lists stored credentials of now-compromised models.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { EXIT_COMPROMISED, runMetadataCheck } from '../../src/cli/metadata.js';
import { loadConfig } from '../../src/config/load.js';
import { openCredentialStore } from '../../src/stores/open.js';
import type { CredentialRecord } from '../../src/stores/types.js';
import type { Runtime } from '../../src/util/runtime.js';
import { blobPayload, createTestMds, mdsEntry } from '../support/mds.js';

const NOW = Date.parse('2030-06-01T00:00:00Z');
const runtime: Runtime = { now: () => NOW, randomBytes: (n) => Buffer.alloc(n, 7) };
const BAD = 'aaaaaaaa-0000-4000-8000-000000000001';
const GOOD = 'aaaaaaaa-0000-4000-8000-000000000002';

function capture() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += String(chunk); done(); } });
  return { stream, text: () => text };
}

function credential(credentialId: string, aaguid: string): CredentialRecord {
  return {
    clientId: 'bank', credentialId, userHandle: 'dXNlcg', username: `${credentialId}#bank.example`, publicKey: new Uint8Array([1]),
    algorithm: -7, signCount: 0, transports: [], aaguid, attestationFormat: 'packed', attestationType: 'basic', attestationTrusted: true,
    backupEligible: false, backupState: false, userVerified: true, residentKey: null, cloneWarning: false, createdAt: NOW, lastUsedAt: null,
  };
}

describe('metadata check command', () => {
  it('installs a newer BLOB, lists credentials whose model became compromised, refuses an older BLOB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdscli-'));
    try {
      const mds = createTestMds();
      writeFileSync(join(dir, 'mds-root.pem'), mds.root.pem);
      const clean = mds.sign(blobPayload([mdsEntry({ aaguid: BAD, description: 'Leaky Key' }), mdsEntry({ aaguid: GOOD })], { no: 1 }));
      const newer = mds.sign(blobPayload([
        mdsEntry({ aaguid: BAD, description: 'Leaky Key', statusReports: [{ status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' }, { status: 'USER_KEY_REMOTE_COMPROMISE', effectiveDate: '2030-05-01' }] }),
        mdsEntry({ aaguid: GOOD }),
      ], { no: 2 }));
      writeFileSync(join(dir, 'blob.jwt'), clean);
      writeFileSync(join(dir, 'new.jwt'), newer);
      writeFileSync(join(dir, 'old.jwt'), mds.sign(blobPayload([], { no: 0 })));
      writeFileSync(join(dir, 'config.json'), JSON.stringify({
        database: 'sqlite:./fido2.db',
        applications: [{
          clientId: 'bank', name: 'Bank', domain: 'bank.example', origins: ['https://bank.example'], variants: ['standard'],
          attestation: { metadata: './blob.jwt', metadataRoots: ['./mds-root.pem'] },
        }],
      }));
      const config = loadConfig({ file: join(dir, 'config.json'), env: {}, cwd: dir });
      const store = await openCredentialStore(config);
      await store.create(credential('cred-bad', BAD));
      await store.create(credential('cred-good', GOOD));
      await store.close();

      const run = async (args: string[]) => {
        const out = capture();
        const err = capture();
        const code = await runMetadataCheck(['--config', join(dir, 'config.json'), ...args], { stdout: out.stream, stderr: err.stream, env: {}, cwd: dir }, runtime);
        return { code, out: out.text(), err: err.text() };
      };

      const before = await run([]);
      assert.equal(before.code, 0, before.err);
      assert.match(before.out, /no stored credential/);

      const after = await run(['--blob', 'new.jwt', '--json']);
      assert.equal(after.code, EXIT_COMPROMISED, after.err);
      const [report] = JSON.parse(after.out) as { blob: { serial: number; installed: boolean }; compromised: { credentialId: string; status: string; authenticator: string }[] }[];
      assert.equal(report?.blob.serial, 2);
      assert.equal(report?.blob.installed, true);
      assert.deepEqual(report?.compromised.map((c) => [c.credentialId, c.status, c.authenticator]), [['cred-bad', 'USER_KEY_REMOTE_COMPROMISE', 'Leaky Key']]);
      assert.equal(readFileSync(join(dir, 'blob.jwt'), 'utf8'), newer, 'the newer BLOB replaced the installed file');

      const older = await run(['--blob', 'old.jwt']);
      assert.equal(older.code, 1);
      assert.match(older.err, /METADATA_BLOB_NOT_NEWER/);

      const forged = await run(['--blob', 'config.json']);
      assert.equal(forged.code, 1);
      assert.match(forged.err, /METADATA_BLOB_INVALID/);
      assert.equal(readFileSync(join(dir, 'blob.jwt'), 'utf8'), newer, 'a refused BLOB changes nothing');

      assert.equal((await run(['--bogus'])).code, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
