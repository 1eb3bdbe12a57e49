// Certification paths for attestation: order tolerance, DER quirks, and one error name per way a chain fails.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildPath, findAnchor, verifyPathInternals } from '../../src/webauthn/certificates.js';
import { parseCertificate } from '../../src/webauthn/x509.js';
import { FidoError } from '../../src/errors/catalogue.js';
import { createChain, createIntermediate, createLeaf, createRoot } from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');

/** The DER with one validity time's text replaced (same length; the signature no longer covers it). */
function withTime(der: Buffer, from: string, to: string): Buffer {
  const at = der.indexOf(Buffer.from(from, 'latin1'));
  assert.ok(at > 0, `${from} is in the certificate`);
  const copy = Buffer.from(der);
  copy.write(to, at, 'latin1');
  return copy;
}

function fails(code: string, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof FidoError && err.code === code, `expected ${code}`);
}

describe('certificate paths', () => {
  it('builds leaf → intermediates → anchor with the intermediates in any order', () => {
    const chain = createChain({ intermediateCount: 3 });
    const [a, b, c] = chain.intermediates.map((i) => i.cert);
    for (const order of [
      [a, b, c],
      [c, b, a],
      [b, a, c],
    ]) {
      const result = buildPath([chain.leaf.cert, ...order.map((x) => x!)], [chain.root.cert], NOW);
      assert.equal(result.anchor?.fingerprint256, chain.root.cert.fingerprint256);
      assert.equal(result.path.length, 4);
    }
  });

  it('ignores exact duplicates (Android chains have shipped them)', () => {
    const chain = createChain();
    const inter = chain.intermediates[0]!.cert;
    assert.ok(buildPath([chain.leaf.cert, inter, inter, chain.leaf.cert], [chain.root.cert], NOW).anchor);
  });

  it('an unknown root leaves the path untrusted, not failed', () => {
    const chain = createChain();
    const other = createRoot();
    const result = buildPath([chain.leaf.cert, chain.intermediates[0]!.cert], [other.cert], NOW);
    assert.equal(result.anchor, undefined);
  });

  it('accepts a leaf that is itself the anchor ("self batch referencing")', () => {
    const root = createRoot();
    const leaf = createLeaf(root);
    assert.equal(buildPath([leaf.cert], [leaf.cert], NOW).anchor?.fingerprint256, leaf.cert.fingerprint256);
  });

  it('finds a root the device does not send (remotely provisioned Android chains)', () => {
    const chain = createChain({ intermediateCount: 2 });
    const x5c = [chain.leaf.cert, ...chain.intermediates.map((i) => i.cert).reverse()];
    assert.ok(buildPath(x5c, [chain.root.cert], NOW).anchor);
  });

  it('CERTIFICATE_CHAIN_INCLUDES_ROOT: x5c carries its self-signed anchor (unless the format sends roots)', () => {
    const chain = createChain();
    const x5c = [chain.leaf.cert, chain.intermediates[0]!.cert, chain.root.cert];
    fails('CERTIFICATE_CHAIN_INCLUDES_ROOT', () => buildPath(x5c, [chain.root.cert], NOW));
    assert.ok(buildPath(x5c, [chain.root.cert], NOW, { rootMaySend: true }).anchor);
  });

  it('accepts an intermediate that metadata lists as a root when it is also sent', () => {
    const chain = createChain();
    const inter = chain.intermediates[0]!.cert;
    assert.equal(buildPath([chain.leaf.cert, inter], [inter], NOW).anchor?.fingerprint256, inter.fingerprint256);
  });

  it('CERTIFICATE_EXPIRED / CERTIFICATE_NOT_YET_VALID for the leaf, an intermediate and the anchor', () => {
    const root = createRoot();
    const expiredLeaf = createLeaf(root, { notAfter: new Date('2030-01-01T00:00:00Z') });
    fails('CERTIFICATE_EXPIRED', () => buildPath([expiredLeaf.cert], [root.cert], NOW));
    const futureLeaf = createLeaf(root, { notBefore: new Date('2031-01-01T00:00:00Z') });
    fails('CERTIFICATE_NOT_YET_VALID', () => buildPath([futureLeaf.cert], [root.cert], NOW));
    const expiredInter = createIntermediate(root, { notAfter: new Date('2030-01-01T00:00:00Z') });
    const leaf = createLeaf(expiredInter);
    fails('CERTIFICATE_EXPIRED', () => buildPath([leaf.cert, expiredInter.cert], [root.cert], NOW));
    const expiredRoot = createRoot({ notAfter: new Date('2030-01-01T00:00:00Z') });
    fails('CERTIFICATE_EXPIRED', () => buildPath([createLeaf(expiredRoot).cert], [expiredRoot.cert], NOW));
    // The same chain is fine at a time when everything was valid (the injected clock decides).
    assert.ok(buildPath([leaf.cert, expiredInter.cert], [root.cert], new Date('2029-01-01T00:00:00Z')).anchor);
  });

  it('CERTIFICATE_UNREADABLE: a validity date OpenSSL cannot print (month 13) never counts as valid', () => {
    const chain = createChain();
    const leafDer = withTime(chain.leaf.der, '000101000000Z', '001301000000Z');
    fails('CERTIFICATE_UNREADABLE', () => buildPath([parseCertificate(leafDer)], [chain.root.cert], NOW));
    const leafTo = withTime(chain.leaf.der, '491231235959Z', '491331235959Z');
    fails('CERTIFICATE_UNREADABLE', () => buildPath([parseCertificate(leafTo)], [chain.root.cert], NOW));
    // An intermediate's unreadable date, and the ordered-path API.
    const inter = parseCertificate(withTime(chain.intermediates[0]!.der, '000101000000Z', '001301000000Z'));
    fails('CERTIFICATE_UNREADABLE', () => buildPath([chain.leaf.cert, inter], [chain.root.cert], NOW));
    fails('CERTIFICATE_UNREADABLE', () => verifyPathInternals([chain.leaf.cert, inter], NOW));
  });

  it('CERTIFICATE_ISSUER_NOT_FOUND: a certificate of x5c that is not part of the chain (wrong intermediate)', () => {
    const chain = createChain();
    const stranger = createIntermediate(chain.root, { subject: { CN: 'Unrelated CA' } });
    fails('CERTIFICATE_ISSUER_NOT_FOUND', () => buildPath([chain.leaf.cert, stranger.cert], [chain.root.cert], NOW));
  });

  it('CERTIFICATE_ISSUER_NOT_FOUND: chain out of order (the leaf is not first)', () => {
    const chain = createChain();
    fails('CERTIFICATE_ISSUER_NOT_FOUND', () =>
      buildPath([chain.intermediates[0]!.cert, chain.leaf.cert], [chain.root.cert], NOW),
    );
  });

  it('CERTIFICATE_SIGNATURE_INVALID: the issuer named is there but did not sign', () => {
    const root = createRoot();
    const inter = createIntermediate(root);
    // Same subject name as `inter`, different key: the leaf names it but its signature cannot verify.
    const impostor = createIntermediate(root);
    const leaf = createLeaf(inter);
    fails('CERTIFICATE_SIGNATURE_INVALID', () => buildPath([leaf.cert, impostor.cert], [root.cert], NOW));
    // An anchor that only shares the issuer's name is another key: untrusted, not broken.
    const sameNameRoot = createRoot();
    assert.equal(buildPath([leaf.cert, inter.cert], [sameNameRoot.cert], NOW).anchor, undefined);
  });

  it('CERTIFICATE_ISSUER_NOT_CA: issuer without CA flag, without keyCertSign, or beyond its path length', () => {
    const root = createRoot();
    const notCa = createIntermediate(root, { basicConstraints: { ca: false } });
    fails('CERTIFICATE_ISSUER_NOT_CA', () => buildPath([createLeaf(notCa).cert, notCa.cert], [root.cert], NOW));
    const noCertSign = createIntermediate(root, { keyUsage: ['digitalSignature'] });
    fails('CERTIFICATE_ISSUER_NOT_CA', () =>
      buildPath([createLeaf(noCertSign).cert, noCertSign.cert], [root.cert], NOW),
    );
    const limited = createRoot({ basicConstraints: { ca: true, pathLength: 0 } });
    const inter = createIntermediate(limited);
    fails('CERTIFICATE_ISSUER_NOT_CA', () => buildPath([createLeaf(inter).cert, inter.cert], [limited.cert], NOW));
    assert.ok(buildPath([createLeaf(limited).cert], [limited.cert], NOW).anchor);
  });

  it('keeps verifyPathInternals and findAnchor working for ordered paths', () => {
    const chain = createChain();
    const path = [chain.leaf.cert, chain.intermediates[0]!.cert];
    verifyPathInternals(path, NOW);
    assert.ok(findAnchor(path, [chain.root.cert], NOW));
    fails('CERTIFICATE_ISSUER_NOT_FOUND', () => verifyPathInternals([...path].reverse(), NOW));
    fails('CERTIFICATE_CHAIN_INCLUDES_ROOT', () => findAnchor([...path, chain.root.cert], [chain.root.cert], NOW));
  });
});

describe('DER quirks real authenticators ship', () => {
  it('repairs a signature BIT STRING that claims unused bits (early YubiKey U2F certificates)', () => {
    const root = createRoot();
    const leaf = createLeaf(root);
    const der = Buffer.from(leaf.der);
    // The signature BIT STRING is the last element: find its unused-bits octet from the end.
    const sigStart = findSignatureBitString(der);
    der[sigStart] = 0x07; // claim 7 unused bits, as the broken batches did
    const repaired = parseCertificate(der);
    assert.equal(repaired.fingerprint256, leaf.cert.fingerprint256);
    assert.ok(repaired.verify(root.publicKey), 'the repaired certificate verifies');
  });

  it('CERTIFICATE_UNREADABLE for bytes that are no certificate', () => {
    assert.throws(
      () => parseCertificate(Buffer.from('3003020101', 'hex')),
      (e: unknown) => e instanceof FidoError && e.code === 'CERTIFICATE_UNREADABLE',
    );
  });
});

/** Offset of the unused-bits octet of the outer signature BIT STRING. */
function findSignatureBitString(der: Buffer): number {
  // Walk: outer SEQUENCE header, then skip TBSCertificate and AlgorithmIdentifier.
  const header = (pos: number) => {
    const l = der[pos + 1]!;
    if (l < 0x80) return { content: pos + 2, end: pos + 2 + l };
    const n = l & 0x7f;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[pos + 2 + i]!;
    return { content: pos + 2 + n, end: pos + 2 + n + len };
  };
  const outer = header(0);
  const tbs = header(outer.content);
  const alg = header(tbs.end);
  const sig = header(alg.end);
  return sig.content;
}
