// "Trust is proven, never claimed" (WebAuthn L3 §7.1 steps 23-24): format roots vouch only for AAGUIDs
// without a metadata statement; AAGUID lists decide only on an AAGUID a trusted attestation proved; a chain
// that does not lead to the trust material that applies to it is refused even without requireTrusted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { X509Certificate } from 'node:crypto';
import { FidoError } from '../../src/errors/catalogue.js';
import type { AttestationOutcome } from '../../src/webauthn/attestation/types.js';
import { indexMetadata, verifyMetadataBlob } from '../../src/webauthn/metadata/index.js';
import { createTrustEvaluator, type TrustPolicyData } from '../../src/webauthn/trust.js';
import { blobPayload, createTestMds, mdsEntry, type EntryOptions } from '../support/mds.js';
import { createChain } from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');
const YUBIKEY = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';
const OTHER = '11111111-2222-4333-8444-555555555555';
const mds = createTestMds();
const vendor = createChain();
const phone = createChain();
const stranger = createChain();
const chainOf = (chain: ReturnType<typeof createChain>): X509Certificate[] => [
  chain.leaf.cert,
  chain.intermediates[0]!.cert,
];

function metadataWith(entries: EntryOptions[]) {
  return indexMetadata(verifyMetadataBlob(mds.sign(blobPayload(entries.map(mdsEntry))), [mds.root.cert], NOW));
}
const yubikeyMetadata = metadataWith([{ aaguid: YUBIKEY, description: 'YubiKey 5', roots: [vendor.root.cert] }]);

function evaluate(policy: Partial<TrustPolicyData>, outcome: AttestationOutcome, aaguid = YUBIKEY, fmt = 'packed') {
  return createTrustEvaluator({ anchors: [], requireTrusted: false, ...policy }).evaluate({
    fmt,
    aaguid,
    outcome,
    now: NOW,
  });
}

function fails(code: string, fn: () => unknown, detail?: RegExp): void {
  assert.throws(
    fn,
    (err: unknown) => err instanceof FidoError && err.code === code && (!detail || detail.test(err.detail ?? '')),
    `expected ${code}${detail ? ` matching ${detail}` : ''}`,
  );
}

/** An android-key style outcome: a chain to the "phone" root, which the format bundles. */
const phoneKeystore: AttestationOutcome = { type: 'basic', trustPath: chainOf(phone), formatRoots: [phone.root.cert] };
const none: AttestationOutcome = { type: 'none', trustPath: [] };
const self: AttestationOutcome = { type: 'self', trustPath: [] };
const fromVendor: AttestationOutcome = { type: 'basic', trustPath: chainOf(vendor) };
const fromStranger: AttestationOutcome = { type: 'basic', trustPath: chainOf(stranger) };

describe('format roots vouch only for AAGUIDs without a metadata statement (issue 16 item 1)', () => {
  it('a keystore chain claiming an AAGUID whose statement names other roots is refused, whatever requireTrusted says', () => {
    for (const requireTrusted of [false, true]) {
      fails(
        'ATTESTATION_NOT_TRUSTED',
        () => evaluate({ metadata: yubikeyMetadata, requireTrusted }, phoneKeystore, YUBIKEY, 'android-key'),
        /metadata statement of AAGUID cb69481e/,
      );
    }
  });

  it('for an AAGUID without a statement the format roots still make the chain trusted, but prove no AAGUID', () => {
    assert.deepEqual(evaluate({ metadata: yubikeyMetadata }, phoneKeystore, OTHER, 'android-key'), {
      trusted: true,
      aaguidProven: false,
      authenticatorName: null,
    });
    assert.deepEqual(evaluate({}, phoneKeystore, OTHER, 'android-key'), {
      trusted: true,
      aaguidProven: false,
      authenticatorName: null,
    });
  });

  it('format roots never satisfy an allow-list by themselves', () => {
    fails('AAGUID_NOT_PROVEN', () => evaluate({ aaguidAllow: [OTHER] }, phoneKeystore, OTHER, 'android-key'));
    fails('AAGUID_NOT_PROVEN', () =>
      evaluate({ aaguidAllow: [OTHER], requireTrusted: true }, phoneKeystore, OTHER, 'android-key'),
    );
  });

  it("the chain to the statement's own roots is trusted and proves the AAGUID", () => {
    assert.deepEqual(evaluate({ metadata: yubikeyMetadata }, fromVendor), {
      trusted: true,
      aaguidProven: true,
      authenticatorName: 'YubiKey 5',
    });
  });
});

describe('AAGUID lists decide only on a proven AAGUID (issue 16 item 2)', () => {
  it('none and self attestation that write an allowed AAGUID are refused: AAGUID_NOT_PROVEN', () => {
    for (const outcome of [none, self]) {
      fails('AAGUID_NOT_PROVEN', () => evaluate({ aaguidAllow: [YUBIKEY] }, outcome), /allow-list/);
      fails('AAGUID_NOT_PROVEN', () => evaluate({ aaguidAllow: [YUBIKEY], metadata: yubikeyMetadata }, outcome));
    }
  });

  it('a denied model cannot register by writing another AAGUID', () => {
    fails('AAGUID_NOT_PROVEN', () => evaluate({ aaguidDeny: [YUBIKEY] }, none, OTHER), /deny-list/);
    fails('AAGUID_NOT_PROVEN', () => evaluate({ aaguidDeny: [YUBIKEY] }, self, OTHER));
  });

  it('self attestation that metadata calls surrogate basic is trusted, but proves no AAGUID', () => {
    const metadata = metadataWith([
      { aaguid: YUBIKEY, description: 'Surrogate Key', attestationTypes: ['basic_surrogate'] },
    ]);
    assert.deepEqual(evaluate({ metadata }, self), {
      trusted: true,
      aaguidProven: false,
      authenticatorName: 'Surrogate Key',
    });
    fails('AAGUID_NOT_PROVEN', () => evaluate({ metadata, aaguidAllow: [YUBIKEY] }, self));
  });

  it("a chain to the application's anchors or the AAGUID's statement proves it: the lists then decide", () => {
    assert.equal(evaluate({ aaguidAllow: [YUBIKEY], anchors: [vendor.root.cert] }, fromVendor).aaguidProven, true);
    assert.equal(evaluate({ aaguidAllow: [YUBIKEY], metadata: yubikeyMetadata }, fromVendor).aaguidProven, true);
    fails('AAGUID_NOT_ALLOWED', () => evaluate({ aaguidDeny: [YUBIKEY], anchors: [vendor.root.cert] }, fromVendor));
    fails('AAGUID_NOT_ALLOWED', () =>
      evaluate({ aaguidAllow: [YUBIKEY], anchors: [vendor.root.cert] }, fromVendor, OTHER),
    );
  });

  it('without lists, none and self stay accepted; a name from an unproven AAGUID comes back marked unproven', () => {
    assert.deepEqual(evaluate({ metadata: yubikeyMetadata }, none), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: 'YubiKey 5',
    });
    assert.deepEqual(evaluate({ anchors: [vendor.root.cert] }, self), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: null,
    });
  });
});

describe('a chain that does not lead to the applicable trust material is refused (issue 16 item 3, §7.1 step 24)', () => {
  it("the application's anchors apply to every chain: another root fails without requireTrusted", () => {
    fails(
      'ATTESTATION_NOT_TRUSTED',
      () => evaluate({ anchors: [vendor.root.cert] }, fromStranger),
      /application's trust anchors/,
    );
    fails('ATTESTATION_NOT_TRUSTED', () =>
      evaluate({ anchors: [vendor.root.cert] }, fromStranger, '00000000-0000-0000-0000-000000000000', 'fido-u2f'),
    );
  });

  it("the AAGUID's metadata statement applies to its chains", () => {
    fails(
      'ATTESTATION_NOT_TRUSTED',
      () => evaluate({ metadata: yubikeyMetadata }, fromStranger),
      /metadata statement of AAGUID/,
    );
    // Another AAGUID's statement does not apply: with no applicable material the chain is recorded untrusted.
    assert.deepEqual(evaluate({ metadata: yubikeyMetadata }, fromStranger, OTHER), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: null,
    });
  });

  it('with no applicable trust material a chain is still accepted and recorded untrusted', () => {
    assert.deepEqual(evaluate({}, fromStranger), { trusted: false, aaguidProven: false, authenticatorName: null });
  });
});
