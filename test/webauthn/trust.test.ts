// WebAuthn L3 §7.1 steps 23-24: the application's trust decision (anchors, metadata, status, AAGUID lists).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { X509Certificate } from 'node:crypto';
import { prepareTrust } from '../../src/applications/config-directory.js';
import type { AttestationPolicy } from '../../src/service-config.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { FidoError } from '../../src/errors/catalogue.js';
import type { AttestationOutcome } from '../../src/webauthn/attestation/types.js';
import {
  attestationKeyIdentifier,
  indexMetadata,
  verifyMetadataBlob,
  ZERO_AAGUID,
} from '../../src/webauthn/metadata/index.js';
import { parseCertificate } from '../../src/webauthn/x509.js';
import { createTrustEvaluator, loadTrustEvaluator, type TrustPolicyData } from '../../src/webauthn/trust.js';
import { minimalApp } from '../config/support.js';
import { blobPayload, createTestMds, createTestMdsCrls, mdsEntry, type EntryOptions } from '../support/mds.js';
import { createChain, createLeaf, createRoot } from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');
const AAGUID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const mds = createTestMds();
const chain = createChain();
const x5c = [chain.leaf.cert, chain.intermediates[0]!.cert];

function metadataWith(entries: EntryOptions[], nextUpdate = '2049-01-01') {
  return indexMetadata(
    verifyMetadataBlob(mds.sign(blobPayload(entries.map(mdsEntry), { nextUpdate })), [mds.root.cert], NOW),
  );
}

function evaluate(
  policy: Partial<TrustPolicyData>,
  outcome: AttestationOutcome,
  options: { aaguid?: string; fmt?: string; now?: Date } = {},
) {
  return createTrustEvaluator({ anchors: [], requireTrusted: false, ...policy }).evaluate({
    fmt: options.fmt ?? 'packed',
    aaguid: options.aaguid ?? AAGUID,
    outcome,
    now: options.now ?? NOW,
  });
}

const full = (trustPath: readonly X509Certificate[] = x5c): AttestationOutcome => ({ type: 'basic', trustPath });

function fails(code: string, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof FidoError && err.code === code, `expected ${code}`);
}

describe('trust policy: default (permissive)', () => {
  it('accepts an unknown root as untrusted, and none/self as untrusted', () => {
    assert.deepEqual(evaluate({}, full()), { trusted: false, aaguidProven: false, authenticatorName: null });
    assert.deepEqual(evaluate({}, { type: 'none', trustPath: [] }), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: null,
    });
    assert.deepEqual(evaluate({}, { type: 'self', trustPath: [] }), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: null,
    });
  });

  it('trusts a chain to a configured anchor, or to a format root', () => {
    assert.equal(evaluate({ anchors: [chain.root.cert] }, full()).trusted, true);
    assert.equal(evaluate({}, { ...full(), formatRoots: [chain.root.cert] }).trusted, true);
  });

  it('a broken chain fails under every policy', () => {
    fails('CERTIFICATE_EXPIRED', () => evaluate({}, full(), { now: new Date('2050-06-01T00:00:00Z') }));
  });

  it("trusts a chain to the roots of the AAGUID's own metadata statement and names the authenticator", () => {
    const metadata = metadataWith([{ aaguid: AAGUID, description: 'Test Key 5', roots: [chain.root.cert] }]);
    assert.deepEqual(evaluate({ metadata }, full()), {
      trusted: true,
      aaguidProven: true,
      authenticatorName: 'Test Key 5',
    });
    // Another model's roots never vouch for this AAGUID.
    const other = metadataWith([
      { aaguid: AAGUID, description: 'Mine' },
      { aaguid: '99999999-bbbb-4ccc-8ddd-eeeeeeeeeeee', roots: [chain.root.cert] },
    ]);
    assert.deepEqual(evaluate({ metadata: other }, full()), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: 'Mine',
    });
  });

  it('finds U2F metadata by attestation key identifier only when the AAGUID is zero', () => {
    const metadata = metadataWith([
      { keyIdentifiers: [attestationKeyIdentifier(chain.leaf.cert)], description: 'U2F Key', roots: [chain.root.cert] },
    ]);
    assert.deepEqual(evaluate({ metadata }, full(), { aaguid: ZERO_AAGUID, fmt: 'fido-u2f' }), {
      trusted: true,
      aaguidProven: true,
      authenticatorName: 'U2F Key',
    });
    assert.deepEqual(evaluate({ metadata }, full()), { trusted: false, aaguidProven: false, authenticatorName: null });
  });

  it('self attestation is trusted when the statement lists basic_surrogate', () => {
    const metadata = metadataWith([{ aaguid: AAGUID, attestationTypes: ['basic_surrogate'] }]);
    assert.equal(evaluate({ metadata }, { type: 'self', trustPath: [] }).trusted, true);
  });

  it('an attestation type the statement does not list is not trusted (full attestation from a surrogate-only model)', () => {
    const metadata = metadataWith([
      { aaguid: AAGUID, attestationTypes: ['basic_surrogate'], roots: [chain.root.cert] },
    ]);
    assert.equal(evaluate({ metadata }, full()).trusted, false);
    fails('ATTESTATION_NOT_TRUSTED', () => evaluate({ metadata, requireTrusted: true }, full()));
  });
});

describe('trust policy: requireTrusted, status reports, AAGUID lists', () => {
  it('ATTESTATION_NOT_TRUSTED for an unknown root, none and self', () => {
    fails('ATTESTATION_NOT_TRUSTED', () => evaluate({ requireTrusted: true }, full()));
    fails('ATTESTATION_NOT_TRUSTED', () => evaluate({ requireTrusted: true }, { type: 'none', trustPath: [] }));
    fails('ATTESTATION_NOT_TRUSTED', () => evaluate({ requireTrusted: true }, { type: 'self', trustPath: [] }));
    assert.equal(evaluate({ requireTrusted: true, anchors: [chain.root.cert] }, full()).trusted, true);
  });

  for (const status of [
    'REVOKED',
    'USER_VERIFICATION_BYPASS',
    'ATTESTATION_KEY_COMPROMISE',
    'USER_KEY_REMOTE_COMPROMISE',
    'USER_KEY_PHYSICAL_COMPROMISE',
  ]) {
    it(`AUTHENTICATOR_STATUS_NOT_ACCEPTED when the latest status is ${status}, under every policy`, () => {
      const metadata = metadataWith([
        {
          aaguid: AAGUID,
          roots: [chain.root.cert],
          statusReports: [
            { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
            { status, effectiveDate: '2029-01-01' },
          ],
        },
      ]);
      fails('AUTHENTICATOR_STATUS_NOT_ACCEPTED', () => evaluate({ metadata }, full()));
      fails('AUTHENTICATOR_STATUS_NOT_ACCEPTED', () => evaluate({ metadata }, { type: 'none', trustPath: [] }));
      // Before the report took effect, the same authenticator was fine.
      assert.equal(evaluate({ metadata }, full(), { now: new Date('2028-01-01T00:00:00Z') }).trusted, true);
    });
  }

  it('ATTESTATION_KEY_COMPROMISE naming a certificate with repaired signature bits (early YubiKeys) refuses that chain', () => {
    const der = Buffer.from(chain.leaf.der);
    // The signature BIT STRING ends the certificate: 03 <length> <unused bits> <signature>.
    const at = [...der.keys()]
      .reverse()
      .find((i) => der[i] === 0x03 && der[i + 1] === der.length - i - 2 && der[i + 2] === 0x00);
    assert.ok(at !== undefined);
    der[at + 2] = 0x07; // the quirk: 7 unused bits claimed
    const leaf = parseCertificate(der);
    const metadata = metadataWith([
      {
        aaguid: AAGUID,
        roots: [chain.root.cert],
        statusReports: [
          { status: 'ATTESTATION_KEY_COMPROMISE', effectiveDate: '2029-01-01', certificate: der.toString('base64') },
        ],
      },
    ]);
    fails('AUTHENTICATOR_STATUS_NOT_ACCEPTED', () =>
      evaluate({ metadata }, full([leaf, chain.intermediates[0]!.cert])),
    );
    // Another certificate of the same model is not compromised.
    assert.equal(
      evaluate({ metadata }, full([createLeaf(chain.intermediates[0]!).cert, chain.intermediates[0]!.cert])).trusted,
      true,
    );
  });

  it('accepts an authenticator whose latest status is no longer a compromise (UPDATE_AVAILABLE after a bypass)', () => {
    const metadata = metadataWith([
      {
        aaguid: AAGUID,
        roots: [chain.root.cert],
        statusReports: [
          { status: 'USER_VERIFICATION_BYPASS', effectiveDate: '2025-01-01' },
          { status: 'UPDATE_AVAILABLE', effectiveDate: '2026-01-01' },
        ],
      },
    ]);
    assert.equal(evaluate({ metadata }, full()).trusted, true);
  });

  it('AAGUID_NOT_ALLOWED: on the deny-list, or missing from a non-empty allow-list', () => {
    // The lists decide on an AAGUID the chain proved (here through the application's anchor).
    const anchors = [chain.root.cert];
    fails('AAGUID_NOT_ALLOWED', () => evaluate({ anchors, aaguidDeny: [AAGUID] }, full()));
    fails('AAGUID_NOT_ALLOWED', () =>
      evaluate({ anchors, aaguidAllow: ['00000000-1111-4222-8333-444444444444'] }, full()),
    );
    assert.equal(evaluate({ anchors, aaguidAllow: [AAGUID] }, full()).trusted, true);
  });

  it('a stale BLOB (past nextUpdate) no longer makes chains trusted: METADATA_BLOB_EXPIRED under requireTrusted', () => {
    const metadata = metadataWith([{ aaguid: AAGUID, description: 'Old Key', roots: [chain.root.cert] }], '2030-01-01');
    assert.deepEqual(evaluate({ metadata }, full()), {
      trusted: false,
      aaguidProven: false,
      authenticatorName: 'Old Key',
    });
    fails('METADATA_BLOB_EXPIRED', () => evaluate({ metadata, requireTrusted: true }, full()));
    // Application anchors do not depend on the BLOB's freshness.
    assert.equal(evaluate({ metadata, requireTrusted: true, anchors: [chain.root.cert] }, full()).trusted, true);
  });

  it('checkAuthentication refuses a now-compromised model only where the application enforces it', () => {
    const metadata = metadataWith([
      { aaguid: AAGUID, statusReports: [{ status: 'USER_KEY_REMOTE_COMPROMISE', effectiveDate: '2030-01-01' }] },
    ]);
    const enforcing = createTrustEvaluator({
      anchors: [],
      requireTrusted: false,
      metadata,
      enforceStatusAtAuthentication: true,
    });
    fails('AUTHENTICATOR_STATUS_NOT_ACCEPTED', () => enforcing.checkAuthentication?.({ aaguid: AAGUID, now: NOW }));
    enforcing.checkAuthentication?.({ aaguid: AAGUID, now: new Date('2029-01-01T00:00:00Z') });
    enforcing.checkAuthentication?.({ aaguid: '00000000-1111-4222-8333-444444444444', now: NOW });
    const lenient = createTrustEvaluator({ anchors: [], requireTrusted: false, metadata });
    lenient.checkAuthentication?.({ aaguid: AAGUID, now: NOW });
  });
});

describe('loadTrustEvaluator', () => {
  it('reads PEM anchors, the BLOB and its configured MDS roots from files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-'));
    try {
      const anchorFile = join(dir, 'anchors.pem');
      writeFileSync(anchorFile, createRoot().pem + chain.root.pem);
      const blobFile = join(dir, 'blob.jwt');
      writeFileSync(blobFile, mds.sign(blobPayload([mdsEntry({ aaguid: AAGUID, description: 'From File' })])));
      const rootFile = join(dir, 'mds-root.pem');
      writeFileSync(rootFile, mds.root.pem);
      const policy: AttestationPolicy = {
        trustAnchors: [anchorFile],
        requireTrusted: true,
        metadata: blobFile,
        aaguidAllow: [],
        aaguidDeny: [],
        metadataRoots: [rootFile],
      };
      const evaluator = loadTrustEvaluator(policy, { now: NOW });
      assert.deepEqual(evaluator.metadataInfo, {
        file: blobFile,
        serial: 1,
        nextUpdate: '2049-12-31',
        entries: 1,
        staleAtLoad: false,
        revocationChecked: false,
      });
      assert.deepEqual(evaluator.evaluate({ fmt: 'packed', aaguid: AAGUID, outcome: full(), now: NOW }), {
        trusted: true,
        aaguidProven: true,
        authenticatorName: 'From File',
      });
      // Without the test MDS root, the bundled real MDS roots refuse the test BLOB: the service must not start.
      assert.throws(
        () => loadTrustEvaluator({ ...policy, metadataRoots: [] }, { now: NOW }),
        (err: unknown) => err instanceof FidoError && err.code === 'METADATA_BLOB_SIGNATURE_INVALID',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks the BLOB's signing chain against the configured metadataCrls; a revoked leaf stops the load", () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-crl-'));
    try {
      const blobFile = join(dir, 'blob.jwt');
      writeFileSync(blobFile, mds.sign(blobPayload([mdsEntry({ aaguid: AAGUID })])));
      const rootFile = join(dir, 'mds-root.pem');
      writeFileSync(rootFile, mds.root.pem);
      const valid = createTestMdsCrls(mds);
      writeFileSync(join(dir, 'root.crl'), valid.root.der);
      writeFileSync(join(dir, 'ca.crl.pem'), valid.intermediate.pem);
      writeFileSync(
        join(dir, 'revoked.crl.pem'),
        createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer] } }).intermediate.pem,
      );
      const policy: AttestationPolicy = {
        trustAnchors: [],
        requireTrusted: false,
        metadata: blobFile,
        aaguidAllow: [],
        aaguidDeny: [],
        metadataRoots: [rootFile],
        metadataCrls: [join(dir, 'root.crl'), join(dir, 'ca.crl.pem')],
      };
      assert.equal(loadTrustEvaluator(policy, { now: NOW }).metadataInfo?.revocationChecked, true);
      assert.throws(
        () =>
          loadTrustEvaluator(
            { ...policy, metadataCrls: [join(dir, 'root.crl'), join(dir, 'revoked.crl.pem')] },
            { now: NOW },
          ),
        (err: unknown) =>
          err instanceof FidoError &&
          err.code === 'METADATA_BLOB_CERTIFICATE_REVOKED' &&
          /leaf certificate/.test(err.detail ?? ''),
      );
      assert.throws(
        () => loadTrustEvaluator({ ...policy, metadataCrls: [join(dir, 'ca.crl.pem')] }, { now: NOW }),
        (err: unknown) => err instanceof FidoError && err.code === 'METADATA_BLOB_CRL_MISSING',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an application whose metadataCrls revoke the BLOB's leaf cannot start: a configuration error naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-crl-config-'));
    try {
      writeFileSync(join(dir, 'blob.jwt'), mds.sign(blobPayload([])));
      writeFileSync(join(dir, 'mds-root.pem'), mds.root.pem);
      const crls = createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer] } });
      writeFileSync(join(dir, 'mds-crls.pem'), crls.root.pem + crls.intermediate.pem);
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          applications: [
            minimalApp({
              attestation: {
                metadata: './blob.jwt',
                metadataRoots: ['./mds-root.pem'],
                metadataCrls: ['./mds-crls.pem'],
              },
            }),
          ],
        }),
      );
      const config = loadConfig({ file, env: {}, cwd: dir });
      assert.deepEqual(config.applications[0]?.attestation.metadataCrls, [join(dir, 'mds-crls.pem')]);
      assert.throws(
        () => prepareTrust(config.applications, NOW, file),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.length === 1 &&
          /^applications\[0\]\.attestation\.metadata: .*METADATA_BLOB_CERTIFICATE_REVOKED: the leaf certificate/.test(
            err.problems[0] ?? '',
          ),
      );
      // The same configuration with CRLs that revoke nothing starts, and its BLOB says revocation was checked.
      const clean = createTestMdsCrls(mds);
      writeFileSync(join(dir, 'mds-crls.pem'), clean.root.pem + clean.intermediate.pem);
      assert.equal(prepareTrust(config.applications, NOW, file).metadata[0]?.info.revocationChecked, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the configuration error says what to do: current CRLs for a CRL problem, another BLOB for a revoked chain or a bad BLOB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-crl-remedy-'));
    try {
      writeFileSync(join(dir, 'blob.jwt'), mds.sign(blobPayload([])));
      writeFileSync(join(dir, 'mds-root.pem'), mds.root.pem);
      const revoked = createTestMdsCrls(mds, { intermediate: { revoke: [mds.signer] } });
      writeFileSync(join(dir, 'revoked.pem'), revoked.root.pem + revoked.intermediate.pem);
      writeFileSync(join(dir, 'ca-only.pem'), createTestMdsCrls(mds).intermediate.pem);
      const staleAt = { thisUpdate: new Date('2030-01-01T00:00:00Z'), nextUpdate: new Date('2030-02-01T00:00:00Z') };
      const stale = createTestMdsCrls(mds, { root: staleAt, intermediate: staleAt });
      writeFileSync(join(dir, 'stale.pem'), stale.root.pem + stale.intermediate.pem);
      const policy = (crls: string[] | undefined, roots = ['./mds-root.pem']) => ({
        metadata: './blob.jwt',
        metadataRoots: roots,
        ...(crls ? { metadataCrls: crls } : {}),
      });
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          applications: [
            minimalApp({ clientId: 'revoked', attestation: policy(['./revoked.pem']) }),
            minimalApp({ clientId: 'missing', attestation: policy(['./ca-only.pem']) }),
            minimalApp({ clientId: 'stale', attestation: policy(['./stale.pem']) }),
            minimalApp({ clientId: 'foreign', attestation: policy(undefined, []) }),
          ],
        }),
      );
      const config = loadConfig({ file, env: {}, cwd: dir });
      let problems: readonly string[] = [];
      assert.throws(
        () => prepareTrust(config.applications, NOW, file),
        (err: unknown) => err instanceof ConfigError && ((problems = err.problems), true),
      );
      assert.equal(problems.length, 4, problems.join('\n'));
      const [revokedText, missingText, staleText, foreignText] = problems as [string, string, string, string];
      const revocationDocs = /docs\/attestation\.md, "Revocation of the BLOB's signing chain"\)$/;

      assert.match(
        revokedText,
        /^applications\[0\]\.attestation\.metadata: .*METADATA_BLOB_CERTIFICATE_REVOKED: .*; install a BLOB signed under an unrevoked chain \(/,
      );
      assert.match(revokedText, revocationDocs);
      assert.match(
        missingText,
        /^applications\[1\]\.attestation\.metadata: .*METADATA_BLOB_CRL_MISSING: .*; add a current CRL of that issuer to attestation\.metadataCrls \(/,
      );
      assert.match(missingText, revocationDocs);
      assert.match(
        staleText,
        /^applications\[2\]\.attestation\.metadata: .*METADATA_BLOB_CRL_INVALID: .*stale.*; install current CRLs of the BLOB's signing chain as the attestation\.metadataCrls files \(/,
      );
      assert.match(staleText, revocationDocs);
      for (const text of [revokedText, missingText, staleText]) assert.doesNotMatch(text, /install a valid BLOB/);
      // A BLOB that does not verify at all still asks for a valid BLOB.
      assert.match(
        foreignText,
        /^applications\[3\]\.attestation\.metadata: .*METADATA_BLOB_SIGNATURE_INVALID.*; install a valid BLOB \(docs\/attestation\.md\)$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
