// Issue 23 (from the earlier review): a metadata status report that names a certificate applies only to the
// attestation chain holding it (MDS3 StatusReport.certificate). A later report naming the certificate of a
// repaired batch clears that batch only: the compromised batch stays refused, over the real socket too.
// Where the chain is not known (a sign-in), a named compromise still refuses.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../src/errors/catalogue.js';
import { indexMetadata, latestStatus, verifyMetadataBlob } from '../../src/webauthn/metadata/index.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type { TrustEvaluator } from '../../src/webauthn/attestation/types.js';
import { blobPayload, createTestMds, mdsEntry } from '../support/mds.js';
import { aaguidExtension, createAttestationCa, createLeaf, type Issued } from '../support/pki.js';
import { Flow, PATHS, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { NOW } from './helpers.js';

const AAGUID = '11111111-0000-4000-8000-0000000000c1';
const ca = createAttestationCa('Test Batch Vendor');
const leafOf = () => createLeaf(ca.intermediate, { extensions: [aaguidExtension(AAGUID)] });
const compromised = leafOf();
const repaired = leafOf();
const untouched = leafOf();
const mds = createTestMds();

const metadata = indexMetadata(
  verifyMetadataBlob(
    mds.sign(
      blobPayload([
        mdsEntry({
          aaguid: AAGUID,
          description: 'Test Batch Key',
          roots: [ca.root.cert],
          statusReports: [
            { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
            {
              status: 'ATTESTATION_KEY_COMPROMISE',
              effectiveDate: '2025-01-01',
              certificate: compromised.der.toString('base64'),
            },
            { status: 'UPDATE_AVAILABLE', effectiveDate: '2026-01-01', certificate: repaired.der.toString('base64') },
          ],
        }),
      ]),
    ),
    [mds.root.cert],
    NOW,
  ),
);
const trust: TrustEvaluator = createTrustEvaluator({
  anchors: [],
  requireTrusted: false,
  metadata,
  enforceStatusAtAuthentication: true,
});
const entry = metadata.findByAaguid(AAGUID)!;

describe('status reports that name a certificate apply only to the chain holding it', () => {
  it('the report in force depends on the chain: each batch gets its own, an unnamed one the unnamed', () => {
    assert.equal(
      latestStatus(entry, NOW, [compromised.cert, ca.intermediate.cert])?.status,
      'ATTESTATION_KEY_COMPROMISE',
    );
    assert.equal(latestStatus(entry, NOW, [repaired.cert, ca.intermediate.cert])?.status, 'UPDATE_AVAILABLE');
    assert.equal(latestStatus(entry, NOW, [untouched.cert, ca.intermediate.cert])?.status, 'FIDO_CERTIFIED');
    // Unknown chain: the named compromise may be this credential's; the named repair is not shown to be.
    assert.equal(latestStatus(entry, NOW)?.status, 'ATTESTATION_KEY_COMPROMISE');
  });

  it('a sign-in (chain unknown) with status enforced at authentication is refused', () => {
    assert.throws(
      () => trust.checkAuthentication?.({ aaguid: AAGUID, now: NOW }) ?? assert.fail('no checkAuthentication'),
      (e: unknown) => e instanceof FidoError && e.code === 'AUTHENTICATOR_STATUS_NOT_ACCEPTED',
    );
  });
});

describe('over the socket: registration with each batch of a model whose compromise a later report repaired', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start({ trust });
  });
  after(() => h.close());

  async function registerWith(leaf: Issued, user: string) {
    const flow = new Flow(h, username(user), { fmt: 'packed', aaguid: Buffer.from(AAGUID.replace(/-/g, ''), 'hex') });
    const options = await flow.attestationOptions({ attestation: 'direct' });
    const made = flow.authenticator.register(options, {
      statement: { attestation: { x5c: [leaf.der, ca.intermediate.der], privateKey: leaf.privateKey } },
    });
    return h.post(PATHS.attestationResult, made);
  }

  it('the compromised batch is refused; the repaired batch and an unnamed one register, trusted', async () => {
    const refused = await registerWith(compromised, 'batch-a');
    assert.equal(refused.status, 400, refused.body);
    assert.equal(refused.json().errorMessage[0], 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
    for (const [leaf, user] of [
      [repaired, 'batch-b'],
      [untouched, 'batch-c'],
    ] as const) {
      const res = await registerWith(leaf, user);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json().status, 'ok');
    }
  });
});
