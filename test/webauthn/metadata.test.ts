// FIDO MDS3 BLOBs: signature and chain to the configured root, payload shape, lookup and status rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FidoError } from '../../src/errors.js';
import {
  attestationKeyIdentifier, indexMetadata, isStale, latestStatus, refusingStatus, verifyMetadataBlob,
} from '../../src/webauthn/metadata/index.js';
import { readMetadataFile, readMetadataFileSync } from '../../src/webauthn/metadata/load.js';
import { MDS_ROOT_CERTIFICATES } from '../../src/webauthn/roots/index.js';
import { blobPayload, createTestMds, mdsEntry } from '../support/mds.js';
import { createChain, createRoot } from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');
const AAGUID = '11111111-2222-4333-8444-555555555555';

function fails(code: string, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof FidoError && err.code === code, `expected ${code}`);
}

describe('MDS3 BLOB verification', () => {
  const mds = createTestMds();
  const roots = [mds.root.cert];
  const attestationRoot = createRoot();
  const payload = blobPayload([mdsEntry({ aaguid: AAGUID, description: 'Test Key', roots: [attestationRoot.cert] })], { no: 7, nextUpdate: '2030-07-01' });

  it('reads a BLOB signed under the configured root (ES256 and RS256)', () => {
    const blob = verifyMetadataBlob(mds.sign(payload), roots, NOW);
    assert.equal(blob.serial, 7);
    assert.equal(blob.nextUpdate, '2030-07-01');
    assert.equal(blob.entries[0]?.description, 'Test Key');
    assert.equal(blob.entries[0]?.attestationRoots[0]?.fingerprint256, attestationRoot.cert.fingerprint256);
    const rsa = createTestMds('rsa2048');
    assert.equal(verifyMetadataBlob(rsa.sign(payload), [rsa.root.cert], NOW).serial, 7);
  });

  it('METADATA_BLOB_SIGNATURE_INVALID: a changed payload', () => {
    const [h, , s] = mds.sign(payload).split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, no: 8 })).toString('base64url');
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(`${h}.${forged}.${s}`, roots, NOW));
  });

  it('METADATA_BLOB_SIGNATURE_INVALID: signed under another root (the signing chain does not verify)', () => {
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(mds.sign(payload), [createRoot().cert], NOW));
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(mds.sign(payload), MDS_ROOT_CERTIFICATES, NOW));
  });

  it('METADATA_BLOB_SIGNATURE_INVALID: signed by a key other than the x5c leaf', () => {
    const other = createTestMds();
    const header = { x5c: [mds.signer.der.toString('base64'), mds.intermediate.der.toString('base64')] };
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(other.sign(payload, header), roots, NOW));
  });

  it('METADATA_BLOB_SIGNATURE_INVALID: an expired signing certificate, an unsupported alg', () => {
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(mds.sign(payload), roots, new Date('2051-01-01T00:00:00Z')));
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(mds.sign(payload, { alg: 'none' }), roots, NOW));
  });

  it('METADATA_BLOB_INVALID: not a JWS, no x5c, bad payload fields', () => {
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob('not a jwt', roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob('a+b.c.d', roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign(payload, { x5c: [] }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign({ ...payload, no: 'x' }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign({ ...payload, nextUpdate: '1 July' }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign({ ...payload, entries: {} }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign(blobPayload([{ aaguid: 'nope', statusReports: [] }])), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign(blobPayload([{ aaguid: AAGUID }])), roots, NOW));
  });

  it('reads the operator file (sync at start, async for the command)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-'));
    try {
      const file = join(dir, 'blob.jwt');
      writeFileSync(file, mds.sign(payload));
      assert.equal(readMetadataFileSync(file, roots, NOW).serial, 7);
      assert.equal((await readMetadataFile(file, roots, NOW)).serial, 7);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metadata lookup and status', () => {
  it('indexes by AAGUID and by U2F attestation key identifier', () => {
    const chain = createChain();
    const keyId = attestationKeyIdentifier(chain.leaf.cert);
    assert.match(keyId, /^[0-9a-f]{40}$/);
    const index = indexMetadata(verifyMetadataBlob(createTestMdsBlob([
      mdsEntry({ aaguid: AAGUID.toUpperCase(), description: 'FIDO2 key' }),
      mdsEntry({ keyIdentifiers: [keyId.toUpperCase()], description: 'U2F key' }),
    ]), roots(), NOW));
    assert.equal(index.findByAaguid(AAGUID)?.description, 'FIDO2 key');
    assert.equal(index.findByKeyIdentifier(keyId)?.description, 'U2F key');
    assert.equal(index.findByAaguid('00000000-0000-4000-8000-000000000000'), undefined);
  });

  it('the status in force is the latest effective one; a named compromised certificate refuses only itself', () => {
    const chain = createChain();
    const other = createChain();
    const [entry] = verifyMetadataBlob(createTestMdsBlob([mdsEntry({
      aaguid: AAGUID,
      statusReports: [
        { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
        { status: 'ATTESTATION_KEY_COMPROMISE', effectiveDate: '2030-01-01', certificate: chain.leaf.der.toString('base64') },
        { status: 'REVOKED', effectiveDate: '2031-01-01' },
      ],
    })]), roots(), NOW).entries;
    assert.ok(entry);
    assert.equal(latestStatus(entry, new Date('2025-01-01'))?.status, 'FIDO_CERTIFIED');
    assert.equal(latestStatus(entry, NOW)?.status, 'ATTESTATION_KEY_COMPROMISE');
    assert.equal(refusingStatus(entry, NOW, [chain.leaf.cert])?.status, 'ATTESTATION_KEY_COMPROMISE');
    assert.equal(refusingStatus(entry, NOW, [other.leaf.cert]), undefined);
    assert.equal(refusingStatus(entry, new Date('2031-06-01'), [other.leaf.cert])?.status, 'REVOKED');
    assert.equal(refusingStatus(entry, new Date('2025-01-01')), undefined);
  });

  it('a BLOB is stale from the day after nextUpdate', () => {
    const blob = verifyMetadataBlob(createTestMdsBlob([], '2030-06-01'), roots(), NOW);
    assert.equal(isStale(blob, new Date('2030-06-01T23:59:59Z')), false);
    assert.equal(isStale(blob, new Date('2030-06-02T00:00:00Z')), true);
  });
});

const shared = createTestMds();
function roots() {
  return [shared.root.cert];
}
function createTestMdsBlob(entries: unknown[], nextUpdate = '2049-01-01'): string {
  return shared.sign(blobPayload(entries, { nextUpdate }));
}
