// The whole §7.1 path with the application's trust policy: the soft authenticator registers with every
// attesting format, a test MDS BLOB signed by a test root describes each model, and the registration
// comes out trusted and named — or refused by status report, AAGUID list or requireTrusted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../src/errors/catalogue.js';
import { indexMetadata, verifyMetadataBlob } from '../../src/webauthn/metadata/index.js';
import { createTrustEvaluator, type TrustPolicyData } from '../../src/webauthn/trust.js';
import type { TrustEvaluator } from '../../src/webauthn/attestation/types.js';
import { blobPayload, createTestMds, mdsEntry } from '../support/mds.js';
import { createAttestationCa, createLeaf, aaguidExtension, type AttestationCa } from '../support/pki.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { creationOptions, NOW, registrationExpectation, verifyRegistrationJSON } from './helpers.js';

const MODELS = {
  packed: { aaguid: '11111111-0000-4000-8000-00000000000a', name: 'Test Packed Key' },
  tpm: { aaguid: '11111111-0000-4000-8000-00000000000b', name: 'Test TPM' },
  'android-key': { aaguid: '11111111-0000-4000-8000-00000000000c', name: 'Test Android Keystore' },
  'android-safetynet': { aaguid: '11111111-0000-4000-8000-00000000000d', name: 'Test SafetyNet Phone' },
  apple: { aaguid: '11111111-0000-4000-8000-00000000000e', name: 'Test Apple Device' },
} as const;
type Fmt = keyof typeof MODELS;

const cas = {
  packed: createAttestationCa('Test Packed Vendor'),
  tpm: createAttestationCa('Test TPM Vendor', 'rsa2048'),
  'android-key': createAttestationCa('Test Android'),
  'android-safetynet': createAttestationCa('Test SafetyNet', 'rsa2048'),
  apple: createAttestationCa('Test Apple', 'p384'),
};
const packedLeaf = createLeaf(cas.packed.intermediate, { extensions: [aaguidExtension(MODELS.packed.aaguid)] });
const mds = createTestMds();

function evaluatorMetadata(
  statusOf: Partial<Record<Fmt, string>> = {},
  rootsOf: Partial<Record<Fmt, AttestationCa>> = {},
) {
  const entries = (Object.keys(MODELS) as Fmt[]).map((fmt) =>
    mdsEntry({
      aaguid: MODELS[fmt].aaguid,
      description: MODELS[fmt].name,
      attestationTypes: [fmt === 'tpm' ? 'attca' : fmt === 'apple' ? 'anonca' : 'basic_full'],
      roots: [(rootsOf[fmt] ?? cas[fmt]).root.cert],
      statusReports: [
        { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
        ...(statusOf[fmt] ? [{ status: statusOf[fmt]!, effectiveDate: '2026-01-01' }] : []),
      ],
    }),
  );
  return indexMetadata(verifyMetadataBlob(mds.sign(blobPayload(entries)), [mds.root.cert], NOW));
}

function evaluatorFor(
  statusOf: Partial<Record<Fmt, string>> = {},
  requireTrusted = true,
  lists: Partial<TrustPolicyData> = {},
): TrustEvaluator {
  return createTrustEvaluator({ anchors: [], requireTrusted, metadata: evaluatorMetadata(statusOf), ...lists });
}

function registerWith(fmt: Fmt, trust: TrustEvaluator) {
  const options = creationOptions([-7, -257]);
  const auth = new SoftAuthenticator({ fmt, aaguid: Buffer.from(MODELS[fmt].aaguid.replace(/-/g, ''), 'hex') });
  const statement =
    fmt === 'packed'
      ? { attestation: { x5c: [packedLeaf.der, cas.packed.intermediate.der], privateKey: packedLeaf.privateKey } }
      : { extra: { ca: cas[fmt], timestampMs: NOW.getTime() - 1_000 } };
  const json = auth.register(options, { statement });
  return verifyRegistrationJSON(json, registrationExpectation(options, { trust }));
}

// android-safetynet is not in the soft authenticator's table yet (its JWS timestamp needs the ceremony
// clock, which statement builders do not receive); its format tests build it directly.
const REGISTERED: readonly Fmt[] = ['packed', 'tpm', 'android-key', 'apple'];

describe('registration with a trust policy and test metadata (§7.1 steps 21-24)', () => {
  const trust = evaluatorFor();
  for (const fmt of REGISTERED) {
    it(`${fmt}: trusted through its metadata statement's root, and named from metadata`, () => {
      const verified = registerWith(fmt, trust);
      assert.equal(verified.fmt, fmt);
      assert.equal(verified.attestationTrusted, true);
      assert.equal(verified.authenticatorName, MODELS[fmt].name);
    });
  }

  it("AUTHENTICATOR_STATUS_NOT_ACCEPTED when the model's latest status is a compromise (every format)", () => {
    for (const fmt of REGISTERED) {
      assert.throws(
        () => registerWith(fmt, evaluatorFor({ [fmt]: 'ATTESTATION_KEY_COMPROMISE' }, false)),
        (e: unknown) => e instanceof FidoError && e.code === 'AUTHENTICATOR_STATUS_NOT_ACCEPTED',
        fmt,
      );
    }
  });

  it('requireTrusted refuses a chain to a root nobody listed; the default policy records it untrusted', () => {
    const empty = indexMetadata(verifyMetadataBlob(mds.sign(blobPayload([])), [mds.root.cert], NOW));
    assert.throws(
      () => registerWith('tpm', createTrustEvaluator({ anchors: [], requireTrusted: true, metadata: empty })),
      (e: unknown) => e instanceof FidoError && e.code === 'ATTESTATION_NOT_TRUSTED',
    );
    const verified = registerWith('tpm', createTrustEvaluator({ anchors: [], requireTrusted: false, metadata: empty }));
    assert.equal(verified.attestationTrusted, false);
    assert.equal(verified.authenticatorName, null);
  });

  it("AAGUID_NOT_ALLOWED through the whole registration (an AAGUID its statement's root proved)", () => {
    assert.throws(
      () => registerWith('apple', evaluatorFor({}, false, { aaguidDeny: [MODELS.apple.aaguid] })),
      (e: unknown) => e instanceof FidoError && e.code === 'AAGUID_NOT_ALLOWED',
    );
    assert.equal(
      registerWith('apple', evaluatorFor({}, false, { aaguidAllow: [MODELS.apple.aaguid] })).aaguidProven,
      true,
    );
  });

  it('a chain to another root than its statement names is refused without requireTrusted (§7.1 step 24)', () => {
    const foreign = createTrustEvaluator({
      anchors: [],
      requireTrusted: false,
      metadata: evaluatorMetadata({}, { tpm: createAttestationCa('Another TPM Vendor', 'rsa2048') }),
    });
    assert.throws(
      () => registerWith('tpm', foreign),
      (e: unknown) => e instanceof FidoError && e.code === 'ATTESTATION_NOT_TRUSTED',
    );
  });
});
