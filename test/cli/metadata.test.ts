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
import { systemRuntime, type Runtime } from '../../src/util/runtime.js';
import { blobPayload, createTestMds, createTestMdsCrls, mdsEntry, TEST_MDS_CRL_URLS } from '../support/mds.js';

const NOW = Date.parse('2030-06-01T00:00:00Z');
const runtime: Runtime = {
  now: () => NOW,
  randomBytes: (n) => Buffer.alloc(n, 7),
  startTimer: systemRuntime.startTimer,
};
const BAD = 'aaaaaaaa-0000-4000-8000-000000000001';
const GOOD = 'aaaaaaaa-0000-4000-8000-000000000002';

function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

function credential(credentialId: string, aaguid: string): CredentialRecord {
  return {
    clientId: 'bank',
    credentialId,
    userHandle: 'dXNlcg',
    username: `${credentialId}#bank.example`,
    publicKey: new Uint8Array([1]),
    algorithm: -7,
    signCount: 0,
    transports: [],
    aaguid,
    attestationFormat: 'packed',
    attestationType: 'basic',
    attestationTrusted: true,
    backupEligible: false,
    backupState: false,
    userVerified: true,
    residentKey: null,
    cloneWarning: false,
    createdAt: NOW,
    lastUsedAt: null,
  };
}

describe('metadata check command', () => {
  it('installs a newer BLOB, lists credentials whose model became compromised, refuses an older BLOB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdscli-'));
    try {
      const mds = createTestMds();
      writeFileSync(join(dir, 'mds-root.pem'), mds.root.pem);
      const clean = mds.sign(
        blobPayload([mdsEntry({ aaguid: BAD, description: 'Leaky Key' }), mdsEntry({ aaguid: GOOD })], { no: 1 }),
      );
      const newer = mds.sign(
        blobPayload(
          [
            mdsEntry({
              aaguid: BAD,
              description: 'Leaky Key',
              statusReports: [
                { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
                { status: 'USER_KEY_REMOTE_COMPROMISE', effectiveDate: '2030-05-01' },
              ],
            }),
            mdsEntry({ aaguid: GOOD }),
          ],
          { no: 2 },
        ),
      );
      writeFileSync(join(dir, 'blob.jwt'), clean);
      writeFileSync(join(dir, 'new.jwt'), newer);
      writeFileSync(join(dir, 'old.jwt'), mds.sign(blobPayload([], { no: 0 })));
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({
          database: 'sqlite:./fido2.db',
          applications: [
            {
              clientId: 'bank',
              name: 'Bank',
              domain: 'bank.example',
              origins: ['https://bank.example'],
              variants: ['standard'],
              attestation: { metadata: './blob.jwt', metadataRoots: ['./mds-root.pem'] },
            },
          ],
        }),
      );
      const config = loadConfig({ file: join(dir, 'config.json'), env: {}, cwd: dir });
      const store = await openCredentialStore(config);
      await store.create(credential('cred-bad', BAD));
      await store.create(credential('cred-good', GOOD));
      await store.close();

      const run = async (args: string[]) => {
        const out = capture();
        const err = capture();
        const code = await runMetadataCheck(
          ['--config', join(dir, 'config.json'), ...args],
          { stdout: out.stream, stderr: err.stream, env: {}, cwd: dir },
          runtime,
        );
        return { code, out: out.text(), err: err.text() };
      };

      const before = await run([]);
      assert.equal(before.code, 0, before.err);
      assert.match(before.out, /no stored credential/);
      assert.match(
        before.out,
        /revocation of the BLOB's signing chain: NOT checked \(no attestation\.metadataCrls configured\)/,
      );
      assert.ok(
        before.out.includes(
          `fetch them next to the BLOB): ${TEST_MDS_CRL_URLS.intermediate} ${TEST_MDS_CRL_URLS.root}`,
        ),
        before.out,
      );

      const after = await run(['--blob', 'new.jwt', '--json']);
      assert.equal(after.code, EXIT_COMPROMISED, after.err);
      const [report] = JSON.parse(after.out) as {
        blob: { serial: number; installed: boolean };
        compromised: { credentialId: string; status: string; authenticator: string }[];
      }[];
      assert.equal(report?.blob.serial, 2);
      assert.equal(report?.blob.installed, true);
      assert.deepEqual(
        report?.compromised.map((c) => [c.credentialId, c.status, c.authenticator]),
        [['cred-bad', 'USER_KEY_REMOTE_COMPROMISE', 'Leaky Key']],
      );
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

  it('with metadataCrls: checks the chain, lists the CRL distribution points, refuses to install a BLOB whose signer is revoked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdscli-crl-'));
    try {
      const mds = createTestMds();
      writeFileSync(join(dir, 'mds-root.pem'), mds.root.pem);
      const installed = mds.sign(blobPayload([mdsEntry({ aaguid: GOOD })], { no: 1 }));
      writeFileSync(join(dir, 'blob.jwt'), installed);
      writeFileSync(join(dir, 'new.jwt'), mds.sign(blobPayload([mdsEntry({ aaguid: GOOD })], { no: 2 })));
      const clean = createTestMdsCrls(mds);
      writeFileSync(join(dir, 'root.crl'), clean.root.der);
      writeFileSync(join(dir, 'ca.crl'), clean.intermediate.pem);
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({
          database: 'sqlite:./fido2.db',
          applications: [
            {
              clientId: 'bank',
              name: 'Bank',
              domain: 'bank.example',
              origins: ['https://bank.example'],
              variants: ['standard'],
              attestation: {
                metadata: './blob.jwt',
                metadataRoots: ['./mds-root.pem'],
                metadataCrls: ['./root.crl', './ca.crl'],
              },
            },
          ],
        }),
      );
      const run = async (args: string[]) => {
        const out = capture();
        const err = capture();
        const code = await runMetadataCheck(
          ['--config', join(dir, 'config.json'), ...args],
          { stdout: out.stream, stderr: err.stream, env: {}, cwd: dir },
          runtime,
        );
        return { code, out: out.text(), err: err.text() };
      };

      const checked = await run([]);
      assert.equal(checked.code, 0, checked.err);
      assert.match(
        checked.out,
        /revocation of the BLOB's signing chain: checked against 2 CRL file\(s\), none revoked/,
      );
      const json = await run(['--json']);
      const [report] = JSON.parse(json.out) as {
        revocation: { checked: boolean; crlFiles: string[]; distributionPoints: string[] };
      }[];
      assert.deepEqual(report?.revocation, {
        checked: true,
        crlFiles: [join(dir, 'root.crl'), join(dir, 'ca.crl')],
        distributionPoints: [TEST_MDS_CRL_URLS.intermediate, TEST_MDS_CRL_URLS.root],
      });

      // The MDS CA revokes the BLOB signer; the operator fetches its new CRL next to the new BLOB.
      writeFileSync(
        join(dir, 'ca.crl'),
        createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer], crlNumber: 2 } }).intermediate.pem,
      );
      const refused = await run(['--blob', 'new.jwt']);
      assert.equal(refused.code, 1, refused.out);
      assert.match(refused.err, /METADATA_BLOB_CERTIFICATE_REVOKED: the leaf certificate .*CN=Test MDS BLOB signer/);
      assert.equal(
        readFileSync(join(dir, 'blob.jwt'), 'utf8'),
        installed,
        'a BLOB under a revoked signer is not installed',
      );

      // A stale CRL is refused too, naming where the current one is published.
      writeFileSync(
        join(dir, 'ca.crl'),
        createTestMdsCrls(mds, { intermediate: { nextUpdate: new Date(NOW - 86_400_000) } }).intermediate.pem,
      );
      const stale = await run([]);
      assert.equal(stale.code, 1);
      assert.ok(stale.err.includes(`METADATA_BLOB_CRL_INVALID: ${join(dir, 'ca.crl')}, the CRL of`), stale.err);
      assert.ok(stale.err.includes(`is stale`) && stale.err.includes(TEST_MDS_CRL_URLS.intermediate), stale.err);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
