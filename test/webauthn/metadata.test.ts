// FIDO MDS3 BLOBs: signature and chain to the configured root, payload shape, lookup and status rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FidoError } from '../../src/errors/catalogue.js';
import {
  attestationKeyIdentifier,
  indexMetadata,
  isStale,
  latestStatus,
  refusingStatus,
  verifyMetadataBlob,
} from '../../src/webauthn/metadata/index.js';
import { parseCrl, parseCrls } from '../../src/webauthn/crl.js';
import { chainDistributionPoints } from '../../src/webauthn/metadata/index.js';
import {
  readCrlFiles,
  readCrlFilesSync,
  readMetadataFile,
  readMetadataFileSync,
} from '../../src/webauthn/metadata/load.js';
import { MDS_ROOT_CERTIFICATES } from '../../src/webauthn/roots/index.js';
import { blobPayload, createTestMds, createTestMdsCrls, mdsEntry, TEST_MDS_CRL_URLS } from '../support/mds.js';
import { createChain, createCrl, createRoot, generateKey } from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');
const AAGUID = '11111111-2222-4333-8444-555555555555';

function fails(code: string, fn: () => unknown, detail?: RegExp): void {
  assert.throws(
    fn,
    (err: unknown) =>
      err instanceof FidoError && err.code === code && (detail === undefined || detail.test(err.detail ?? '')),
    `expected ${code}${detail ? ` with a detail matching ${detail}` : ''}`,
  );
}

describe('MDS3 BLOB verification', () => {
  const mds = createTestMds();
  const roots = [mds.root.cert];
  const attestationRoot = createRoot();
  const payload = blobPayload([mdsEntry({ aaguid: AAGUID, description: 'Test Key', roots: [attestationRoot.cert] })], {
    no: 7,
    nextUpdate: '2030-07-01',
  });

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
    fails('METADATA_BLOB_SIGNATURE_INVALID', () =>
      verifyMetadataBlob(mds.sign(payload), roots, new Date('2051-01-01T00:00:00Z')),
    );
    fails('METADATA_BLOB_SIGNATURE_INVALID', () => verifyMetadataBlob(mds.sign(payload, { alg: 'none' }), roots, NOW));
  });

  it('METADATA_BLOB_INVALID: not a JWS, no x5c, bad payload fields', () => {
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob('not a jwt', roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob('a+b.c.d', roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign(payload, { x5c: [] }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign({ ...payload, no: 'x' }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () =>
      verifyMetadataBlob(mds.sign({ ...payload, nextUpdate: '1 July' }), roots, NOW),
    );
    fails('METADATA_BLOB_INVALID', () => verifyMetadataBlob(mds.sign({ ...payload, entries: {} }), roots, NOW));
    fails('METADATA_BLOB_INVALID', () =>
      verifyMetadataBlob(mds.sign(blobPayload([{ aaguid: 'nope', statusReports: [] }])), roots, NOW),
    );
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

describe('MDS3 BLOB signing chain revocation (CRLs)', () => {
  const mds = createTestMds();
  const roots = [mds.root.cert];
  const jwt = mds.sign(blobPayload([mdsEntry({ aaguid: AAGUID })], { no: 3 }));
  const parsed = (...built: { der: Buffer }[]) => built.map((crl, i) => parseCrl(crl.der, `crl-${i}`));
  const valid = createTestMdsCrls(mds);

  it('F-5: a BLOB signed under a revoked MDS intermediate fails with METADATA_BLOB_CERTIFICATE_REVOKED', () => {
    const crls = createTestMdsCrls(mds, {
      root: { revoke: [mds.intermediate], revocationDate: new Date('2030-05-01T00:00:00Z') },
    });
    fails(
      'METADATA_BLOB_CERTIFICATE_REVOKED',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(crls.root, crls.intermediate) }),
      new RegExp(
        `^the intermediate certificate .*CN=Test MDS CA \\(serial ${mds.intermediate.cert.serialNumber}\\) is revoked since 2030-05-01`,
      ),
    );
  });

  it('F-6: a BLOB signed by a revoked MDS leaf fails with METADATA_BLOB_CERTIFICATE_REVOKED', () => {
    const crls = createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer] } });
    fails(
      'METADATA_BLOB_CERTIFICATE_REVOKED',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(crls.root, crls.intermediate) }),
      new RegExp(
        `^the leaf certificate .*CN=Test MDS BLOB signer \\(serial ${mds.signer.cert.serialNumber}\\) is revoked`,
      ),
    );
    // Listed on an older CRL of the issuer, next to a current one that no longer lists it: still revoked.
    const old = createCrl(mds.intermediate, {
      revoke: [mds.signer],
      thisUpdate: new Date('2030-01-01T00:00:00Z'),
      nextUpdate: new Date('2030-02-01T00:00:00Z'),
    });
    fails('METADATA_BLOB_CERTIFICATE_REVOKED', () =>
      verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, valid.intermediate, old) }),
    );
  });

  it('every link covered: with current CRLs of the root and the intermediate the BLOB verifies, revocation checked', () => {
    const blob = verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, valid.intermediate) });
    assert.equal(blob.serial, 3);
    assert.equal(blob.revocationChecked, true);
    assert.deepEqual(
      blob.signingPath.map((cert) => cert.fingerprint256),
      [mds.signer.cert.fingerprint256, mds.intermediate.cert.fingerprint256],
    );
    assert.deepEqual(chainDistributionPoints(blob.signingPath), [
      TEST_MDS_CRL_URLS.intermediate,
      TEST_MDS_CRL_URLS.root,
    ]);
    // CRLs of other CAs next to them change nothing; both CRLs may come in one PEM file.
    const unrelated = createCrl(createRoot(), { revoke: [mds.signer] });
    assert.equal(
      verifyMetadataBlob(jwt, roots, NOW, {
        crls: [...parsed(unrelated), ...parseCrls(Buffer.from(valid.root.pem + valid.intermediate.pem))],
      }).serial,
      3,
    );
  });

  it('without CRLs revocation is not checked: the same BLOB under a revoked leaf verifies, and says so', () => {
    const blob = verifyMetadataBlob(jwt, roots, NOW);
    assert.equal(blob.revocationChecked, false);
    assert.equal(verifyMetadataBlob(jwt, roots, NOW, { crls: [] }).revocationChecked, false);
  });

  it("every link covered: the intermediate's CRL alone leaves the intermediate uncovered (METADATA_BLOB_CRL_MISSING)", () => {
    fails(
      'METADATA_BLOB_CRL_MISSING',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.intermediate) }),
      new RegExp(
        `^no configured CRL comes from .*CN=Test MDS Root, the issuer of the intermediate certificate .*\\(its CRL distribution point: ${TEST_MDS_CRL_URLS.root}\\)`,
      ),
    );
    fails(
      'METADATA_BLOB_CRL_MISSING',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root) }),
      /issuer of the leaf certificate/,
    );
  });

  it('missing CRL: only CRLs of other CAs fail with METADATA_BLOB_CRL_MISSING', () => {
    fails('METADATA_BLOB_CRL_MISSING', () =>
      verifyMetadataBlob(jwt, roots, NOW, {
        crls: parsed(createCrl(createRoot()), createCrl(createRoot({ subject: { CN: 'Other CA' } }))),
      }),
    );
  });

  it('stale CRL: past its nextUpdate, or not yet valid, or without nextUpdate → METADATA_BLOB_CRL_INVALID', () => {
    const stale = createCrl(mds.intermediate, {
      thisUpdate: new Date('2030-05-01T00:00:00Z'),
      nextUpdate: new Date('2030-05-08T00:00:00Z'),
    });
    fails(
      'METADATA_BLOB_CRL_INVALID',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, stale) }),
      new RegExp(`is stale \\(nextUpdate 2030-05-08T00:00:00.000Z\\).*${TEST_MDS_CRL_URLS.intermediate}`),
    );
    const future = createCrl(mds.root, { thisUpdate: new Date('2030-06-02T00:00:00Z') });
    fails(
      'METADATA_BLOB_CRL_INVALID',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(future, valid.intermediate) }),
      /is not yet valid/,
    );
    const open = createCrl(mds.root, { nextUpdate: null });
    fails(
      'METADATA_BLOB_CRL_INVALID',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(open, valid.intermediate) }),
      /has no nextUpdate/,
    );
    // A current CRL next to the stale one covers the link.
    assert.equal(
      verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, stale, valid.intermediate) }).serial,
      3,
    );
  });

  it('a CRL not signed by the issuer, or out of its scope, does not cover the link (METADATA_BLOB_CRL_INVALID)', () => {
    const forged = createCrl(mds.intermediate, { signingKey: generateKey().privateKey });
    fails(
      'METADATA_BLOB_CRL_INVALID',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, forged) }),
      /names .*CN=Test MDS CA as its issuer, but its signature does not verify with the key of .*CN=Test MDS CA/,
    );
    // A forged CRL that lists the leaf is no revocation: it is ignored, and the link stays uncovered.
    const forgedRevoking = createCrl(mds.intermediate, { signingKey: generateKey().privateKey, revoke: [mds.signer] });
    fails('METADATA_BLOB_CRL_INVALID', () =>
      verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, forgedRevoking) }),
    );
    const caOnly = createCrl(mds.intermediate, {
      extensions: [{ oid: '2.5.29.28', critical: true, valueDer: Buffer.from('30038201ff', 'hex') }],
    });
    fails(
      'METADATA_BLOB_CRL_INVALID',
      () => verifyMetadataBlob(jwt, roots, NOW, { crls: parsed(valid.root, caOnly) }),
      /covers only CA certificates/,
    );
  });

  it("the anchor's own revocation is not checked: with the intermediate configured as the root, only the leaf needs a CRL", () => {
    const blob = verifyMetadataBlob(jwt, [mds.intermediate.cert], NOW, { crls: parsed(valid.intermediate) });
    assert.equal(blob.revocationChecked, true);
    assert.equal(blob.signingPath.length, 1);
  });

  it('reads CRL files (PEM, DER) next to the BLOB; an unreadable or missing CRL file is METADATA_BLOB_CRL_INVALID', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mds-crl-'));
    try {
      const blobFile = join(dir, 'blob.jwt');
      writeFileSync(blobFile, jwt);
      writeFileSync(join(dir, 'root.crl'), valid.root.der);
      writeFileSync(join(dir, 'ca.pem'), valid.intermediate.pem);
      const files = [join(dir, 'root.crl'), join(dir, 'ca.pem')];
      assert.equal(readMetadataFileSync(blobFile, roots, NOW, readCrlFilesSync(files)).revocationChecked, true);
      assert.equal((await readMetadataFile(blobFile, roots, NOW, await readCrlFiles(files))).revocationChecked, true);
      writeFileSync(
        join(dir, 'revoked.pem'),
        createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer] } }).intermediate.pem,
      );
      fails('METADATA_BLOB_CERTIFICATE_REVOKED', () =>
        readMetadataFileSync(blobFile, roots, NOW, readCrlFilesSync([join(dir, 'root.crl'), join(dir, 'revoked.pem')])),
      );
      writeFileSync(join(dir, 'garbage.crl'), 'not a CRL');
      fails(
        'METADATA_BLOB_CRL_INVALID',
        () => readCrlFilesSync([join(dir, 'garbage.crl')]),
        /garbage\.crl is neither a DER CRL nor PEM/,
      );
      fails(
        'METADATA_BLOB_CRL_INVALID',
        () => readCrlFilesSync([join(dir, 'missing.crl')]),
        /missing\.crl cannot be read \(ENOENT\)/,
      );
      await assert.rejects(
        readCrlFiles([join(dir, 'ca.pem'), join(dir, 'garbage.crl')]),
        (err: unknown) => err instanceof FidoError && err.code === 'METADATA_BLOB_CRL_INVALID',
      );
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
    const index = indexMetadata(
      verifyMetadataBlob(
        createTestMdsBlob([
          mdsEntry({ aaguid: AAGUID.toUpperCase(), description: 'FIDO2 key' }),
          mdsEntry({ keyIdentifiers: [keyId.toUpperCase()], description: 'U2F key' }),
        ]),
        roots(),
        NOW,
      ),
    );
    assert.equal(index.findByAaguid(AAGUID)?.description, 'FIDO2 key');
    assert.equal(index.findByKeyIdentifier(keyId)?.description, 'U2F key');
    assert.equal(index.findByAaguid('00000000-0000-4000-8000-000000000000'), undefined);
  });

  it('the status in force is the latest effective one; a named compromised certificate refuses only itself', () => {
    const chain = createChain();
    const other = createChain();
    const [entry] = verifyMetadataBlob(
      createTestMdsBlob([
        mdsEntry({
          aaguid: AAGUID,
          statusReports: [
            { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
            {
              status: 'ATTESTATION_KEY_COMPROMISE',
              effectiveDate: '2030-01-01',
              certificate: chain.leaf.der.toString('base64'),
            },
            { status: 'REVOKED', effectiveDate: '2031-01-01' },
          ],
        }),
      ]),
      roots(),
      NOW,
    ).entries;
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
