// Certificate revocation lists (RFC 5280 §5): parsing (DER, PEM), signature, issuer, currency, scope,
// serial matching, and hostile input that must end in CrlError, never in another exception.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AsnNullConverter, AsnObjectIdentifierConverter, OctetString } from '@peculiar/asn1-schema';
import {
  AttributeTypeAndValue,
  AttributeValue,
  BaseCRLNumber,
  CRLNumber,
  Extension,
  Extensions,
  IssuingDistributionPoint,
  Name,
  Reason,
  RelativeDistinguishedName,
  Time,
} from '@peculiar/asn1-x509';
import * as der from '../support/der.js';
import { derOf, integerDer } from '../support/asn1-schema.js';
import { children, readDer } from '../../src/webauthn/asn1.js';
import { buildCrl, crlDistributionPointsExtension, encodeName } from '../support/x509-builder.js';
import { CrlError, parseCrl, parseCrls, serialKey } from '../../src/webauthn/crl.js';
import {
  certificateIssuerName,
  crlDistributionPoints,
  crlTimeStatus,
  findRevoked,
  mayIssueCrls,
  sameName,
  scopeCovers,
  verifyCrlSignature,
} from '../../src/webauthn/crl-checks.js';
import {
  createCrl,
  createIntermediate,
  createLeaf,
  createRoot,
  DEFAULT_NOT_AFTER,
  DEFAULT_NOT_BEFORE,
  generateKey,
  serialOf,
} from '../support/pki.js';

const NOW = new Date('2030-06-01T00:00:00Z');

function unreadable(fn: () => unknown, message?: RegExp): void {
  assert.throws(
    fn,
    (err: unknown) => err instanceof CrlError && (message === undefined || message.test(err.message)),
    `expected CrlError${message ? ` matching ${message}` : ''}`,
  );
}

/** Replaces every occurrence (or only the first) of `from` by `to` (same length) in a copy of `bytes`. */
function patch(bytes: Buffer, from: Buffer, to: Buffer, all = true): Buffer {
  assert.equal(from.length, to.length);
  const out = Buffer.from(bytes);
  let at = out.indexOf(from);
  assert.ok(at >= 0, 'pattern to patch not found');
  while (at >= 0) {
    to.copy(out, at);
    if (!all) break;
    at = out.indexOf(from, at + 1);
  }
  return out;
}

describe('CRL parsing', () => {
  const root = createRoot();
  const leaf = createLeaf(root);
  const other = createLeaf(root);

  it('parses a DER CRL: version, issuer, times, number, listed serials', () => {
    const revocationDate = new Date('2030-01-02T03:04:05Z');
    const built = createCrl(root, {
      revoke: [leaf],
      revocationDate,
      crlNumber: 42,
      thisUpdate: new Date('2030-05-01T00:00:00Z'),
      nextUpdate: new Date('2030-07-01T00:00:00Z'),
    });
    const crl = parseCrl(built.der, 'root.crl');
    assert.equal(crl.label, 'root.crl');
    assert.equal(crl.version, 2);
    assert.ok(crl.issuer.equals(encodeName(root.subject)));
    assert.equal(crl.issuerText, 'C=US, O=Test PKI, CN=Test Root CA');
    assert.equal(crl.thisUpdate.toISOString(), '2030-05-01T00:00:00.000Z');
    assert.equal(crl.nextUpdate?.toISOString(), '2030-07-01T00:00:00.000Z');
    assert.equal(crl.crlNumber, 42n);
    assert.equal(crl.scope, 'all');
    assert.equal(crl.signatureAlgorithm, 'ecdsa-with-SHA256');
    assert.equal(findRevoked(crl, leaf.cert)?.revocationDate.toISOString(), revocationDate.toISOString());
    assert.equal(findRevoked(crl, other.cert), undefined);
  });

  it('parses PEM (one or several blocks, text around them) and DER through parseCrls', () => {
    const first = createCrl(root, { revoke: [leaf] });
    const second = createCrl(root, { crlNumber: 2 });
    assert.equal(parseCrls(Buffer.from(first.pem)).length, 1);
    assert.equal(parseCrls(first.der).length, 1);
    const both = parseCrls(
      Buffer.from(`# root CA CRLs\n${first.pem}\n${second.pem.replace(/\n/g, '\r\n')}`),
      'crls.pem',
    );
    assert.deepEqual(
      both.map((crl) => [crl.crlNumber, crl.revoked.size, crl.label]),
      [
        [1n, 1, 'crls.pem (PEM CRL 1)'],
        [2n, 0, 'crls.pem (PEM CRL 2)'],
      ],
    );
  });

  it('parses a v1 CRL (no version, no extensions) and one without nextUpdate or entries', () => {
    const v1 = parseCrl(
      buildCrl({
        signingKey: root.privateKey,
        issuer: root.subject,
        thisUpdate: DEFAULT_NOT_BEFORE,
        nextUpdate: DEFAULT_NOT_AFTER,
        version: 1,
      }).der,
    );
    assert.equal(v1.version, 1);
    assert.equal(v1.crlNumber, null);
    const open = parseCrl(createCrl(root, { nextUpdate: null }).der);
    assert.equal(open.nextUpdate, null);
    assert.equal(open.revoked.size, 0);
  });

  it('reads the scope of an issuingDistributionPoint (only end-entity / only CA certificates)', () => {
    const idp = (fields: Partial<IssuingDistributionPoint>) => ({
      oid: '2.5.29.28',
      critical: true,
      valueDer: derOf(new IssuingDistributionPoint(fields)),
    });
    assert.equal(
      parseCrl(createCrl(root, { extensions: [idp({ onlyContainsUserCerts: true })] }).der).scope,
      'end-entity',
    );
    assert.equal(parseCrl(createCrl(root, { extensions: [idp({ onlyContainsCACerts: true })] }).der).scope, 'ca');
    assert.equal(scopeCovers('end-entity', false), true);
    assert.equal(scopeCovers('end-entity', true), false);
    assert.equal(scopeCovers('ca', true), true);
    assert.equal(scopeCovers('ca', false), false);
    assert.equal(scopeCovers('all', true), true);
    unreadable(() => parseCrl(createCrl(root, { extensions: [idp({ indirectCRL: true })] }).der), /indirect CRL/);
    unreadable(
      () =>
        parseCrl(createCrl(root, { extensions: [idp({ onlySomeReasons: new Reason(Buffer.from([0x80]), 7) })] }).der),
      /onlySomeReasons/,
    );
  });

  it('ignores entry extensions (reason codes) and unknown non-critical CRL extensions', () => {
    const crl = parseCrl(
      createCrl(root, {
        revoke: [{ serial: serialOf(leaf.cert), revocationDate: DEFAULT_NOT_BEFORE, reason: 1 }],
        extensions: [{ oid: '1.2.3.4.5', valueDer: derOf(AsnNullConverter.toASN(null)) }],
      }).der,
    );
    assert.ok(findRevoked(crl, leaf.cert));
  });
});

describe('CRL signature and issuer', () => {
  it('verifies with the issuer key: ECDSA P-256/P-384, RSA PKCS#1 v1.5 (SHA-256/512), Ed25519', () => {
    for (const [key, hash, name] of [
      ['p256', undefined, 'ecdsa-with-SHA256'],
      ['p384', undefined, 'ecdsa-with-SHA384'],
      ['rsa2048', undefined, 'sha256WithRSAEncryption'],
      ['rsa2048', 'sha512', 'sha512WithRSAEncryption'],
      ['ed25519', undefined, 'Ed25519'],
    ] as const) {
      const issuer = createRoot({ key });
      const crl = parseCrl(createCrl(issuer, hash ? { hash } : {}).der);
      assert.equal(crl.signatureAlgorithm, name);
      assert.equal(verifyCrlSignature(crl, issuer.cert.publicKey), true, name);
      assert.equal(verifyCrlSignature(crl, createRoot({ key }).cert.publicKey), false, `${name} with another key`);
    }
  });

  it('a bad signature: changed signature octets, changed signed content, another key, a key of another type', () => {
    const root = createRoot();
    const built = createCrl(root);
    const crl = parseCrl(built.der);
    const flipped = Buffer.from(built.der);
    flipped[flipped.length - 5]! ^= 0x01;
    assert.equal(verifyCrlSignature(parseCrl(flipped), root.publicKey), false);
    const later = patch(
      built.der,
      derOf(new Time(DEFAULT_NOT_AFTER)),
      derOf(new Time(new Date('2049-12-31T23:59:58Z'))),
    );
    assert.equal(verifyCrlSignature(parseCrl(later), root.publicKey), false);
    assert.equal(
      verifyCrlSignature(parseCrl(createCrl(root, { signingKey: generateKey().privateKey }).der), root.publicKey),
      false,
    );
    assert.equal(verifyCrlSignature(crl, createRoot({ key: 'rsa2048' }).publicKey), false);
  });

  it("matches the issuer name: the certificate's issuer, not another CA; equal names in other string types or case", () => {
    const root = createRoot({ subject: { C: 'US', O: 'Test PKI', CN: 'Test Root CA' } });
    const intermediate = createIntermediate(root);
    const leaf = createLeaf(intermediate);
    const crl = parseCrl(createCrl(intermediate).der);
    assert.equal(sameName(crl.issuer, certificateIssuerName(leaf.cert)), true);
    assert.equal(
      sameName(crl.issuer, certificateIssuerName(intermediate.cert)),
      false,
      'the intermediate is issued by the root',
    );
    const printable = derOf(
      new Name(
        [
          ['2.5.4.6', 'US'],
          ['2.5.4.10', 'test  PKI'],
          ['2.5.4.3', 'TEST ROOT CA'],
        ].map(
          ([type, text]) =>
            new RelativeDistinguishedName([
              new AttributeTypeAndValue({ type, value: new AttributeValue({ printableString: text }) }),
            ]),
        ),
      ),
    );
    assert.equal(sameName(printable, certificateIssuerName(intermediate.cert)), true);
    assert.equal(sameName(Buffer.from('3000', 'hex'), certificateIssuerName(intermediate.cert)), false);
    assert.equal(sameName(Buffer.from('31', 'hex'), certificateIssuerName(intermediate.cert)), false);
  });

  it('an issuer whose key usage lacks cRLSign may not sign CRLs', () => {
    const root = createRoot();
    assert.equal(mayIssueCrls(root.cert), true);
    assert.equal(mayIssueCrls(createIntermediate(root, { keyUsage: ['keyCertSign'] }).cert), false);
    assert.equal(
      mayIssueCrls(createIntermediate(root, { keyUsage: [] }).cert),
      true,
      'no keyUsage extension: no restriction',
    );
  });

  it('reads the CRL distribution points of a certificate', () => {
    const root = createRoot();
    const urls = ['http://crl.example/ca.crl', 'ldap://ldap.example/cn=ca'];
    assert.deepEqual(
      crlDistributionPoints(createLeaf(root, { extensions: [crlDistributionPointsExtension(urls)] }).cert),
      urls,
    );
    assert.deepEqual(crlDistributionPoints(createLeaf(root).cert), []);
    assert.deepEqual(
      crlDistributionPoints(createLeaf(root, { extensions: [{ oid: '2.5.29.31', valueDer: integerDer(1) }] }).cert),
      [],
      'an INTEGER, not the SEQUENCE',
    );
  });
});

describe('CRL currency', () => {
  const root = createRoot();
  const crl = parseCrl(
    createCrl(root, { thisUpdate: new Date('2030-05-01T00:00:00Z'), nextUpdate: new Date('2030-06-08T00:00:00Z') }).der,
  );

  it('current from thisUpdate through nextUpdate (both ends included)', () => {
    assert.equal(crlTimeStatus(crl, NOW), 'current');
    assert.equal(crlTimeStatus(crl, new Date('2030-05-01T00:00:00Z')), 'current');
    assert.equal(crlTimeStatus(crl, new Date('2030-06-08T00:00:00Z')), 'current');
  });

  it('stale after nextUpdate, not yet valid before thisUpdate, unknowable without nextUpdate', () => {
    assert.equal(crlTimeStatus(crl, new Date('2030-06-08T00:00:01Z')), 'stale');
    assert.equal(crlTimeStatus(crl, new Date('2030-04-30T23:59:59Z')), 'not-yet-valid');
    assert.equal(crlTimeStatus(parseCrl(createCrl(root, { nextUpdate: null }).der), NOW), 'no-next-update');
    unreadable(
      () => parseCrl(createCrl(root, { thisUpdate: NOW, nextUpdate: new Date('2030-05-01T00:00:00Z') }).der),
      /nextUpdate is before thisUpdate/,
    );
  });
});

describe('CRL serial matching', () => {
  const root = createRoot();

  it('matches serials as numbers: the DER sign octet and redundant leading zeros do not matter', () => {
    const highBit = createLeaf(root, { serial: Buffer.from('80a1b2c3d4', 'hex') }); // DER content 00 80 a1 b2 c3 d4
    assert.equal(highBit.cert.serialNumber.replace(/^0+/, ''), '80A1B2C3D4');
    const minimal = parseCrl(createCrl(root, { revoke: [highBit] }).der);
    assert.ok(findRevoked(minimal, highBit.cert));
    const padded = parseCrl(
      createCrl(root, {
        revoke: [{ serial: { raw: Buffer.from('000080a1b2c3d4', 'hex') }, revocationDate: DEFAULT_NOT_BEFORE }],
      }).der,
    );
    assert.ok(findRevoked(padded, highBit.cert), 'a serial written with redundant zeros still matches');
    const shifted = parseCrl(
      createCrl(root, { revoke: [{ serial: Buffer.from('80a1b2c3d400', 'hex'), revocationDate: DEFAULT_NOT_BEFORE }] })
        .der,
    );
    assert.equal(findRevoked(shifted, highBit.cert), undefined, 'trailing zeros are part of the number');
    const small = createLeaf(root, { serial: 1 });
    assert.ok(
      findRevoked(
        parseCrl(
          createCrl(root, {
            revoke: [{ serial: { raw: Buffer.from('0001', 'hex') }, revocationDate: DEFAULT_NOT_BEFORE }],
          }).der,
        ),
        small.cert,
      ),
    );
    assert.equal(
      findRevoked(
        parseCrl(createCrl(root, { revoke: [{ serial: 0x0100, revocationDate: DEFAULT_NOT_BEFORE }] }).der),
        small.cert,
      ),
      undefined,
    );
  });

  it('serialKey strips leading zero octets only', () => {
    assert.equal(serialKey(Buffer.from('000001', 'hex')), '01');
    assert.equal(serialKey(Buffer.from('00', 'hex')), '00');
    assert.equal(serialKey(Buffer.from('0080', 'hex')), '80');
    assert.equal(serialKey(Buffer.from('0100', 'hex')), '0100');
  });
});

describe('CRL hostile input', () => {
  const root = createRoot();
  const built = createCrl(root, { revoke: [createLeaf(root), createLeaf(root)] });

  it('every truncation of a CRL is CrlError', () => {
    for (let length = 0; length < built.der.length; length++)
      unreadable(() => parseCrls(built.der.subarray(0, length)));
  });

  it('any single changed octet gives a CRL or CrlError, never another exception', () => {
    for (let i = 0; i < built.der.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bytes = Buffer.from(built.der);
        bytes[i]! ^= mask;
        try {
          parseCrls(bytes);
        } catch (err) {
          assert.ok(err instanceof CrlError, `octet ${i} ^ ${mask}: ${String(err)}`);
        }
      }
    }
  });

  it('garbage, empty input, a certificate, bad PEM, trailing bytes', () => {
    unreadable(() => parseCrls(Buffer.alloc(0)), /empty/);
    unreadable(() => parseCrls(Buffer.from('hello, world')), /neither a DER CRL nor PEM/);
    unreadable(() => parseCrls(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01])), /not a DER X.509 CRL/);
    unreadable(() => parseCrls(root.der), /not a DER X.509 CRL/);
    unreadable(() => parseCrls(Buffer.from(root.pem)), /no PEM CRL/);
    unreadable(
      () => parseCrls(Buffer.from('-----BEGIN X509 CRL-----\nnot*base64\n-----END X509 CRL-----\n')),
      /not base64/,
    );
    unreadable(() => parseCrls(Buffer.from('-----BEGIN X509 CRL-----\n\n-----END X509 CRL-----\n')), /not base64/);
    unreadable(() => parseCrls(Buffer.concat([built.der, Buffer.from([0])])), /trailing bytes/);
  });

  it('a signature algorithm that is not supported, or differs inside and outside the signed part', () => {
    const oid = (dotted: string) => derOf(AsnObjectIdentifierConverter.toASN(dotted));
    const sha256 = oid('1.2.840.10045.4.3.2');
    unreadable(
      () => parseCrl(patch(built.der, sha256, oid('1.2.840.10045.4.3.5'))),
      /1\.2\.840\.10045\.4\.3\.5 is not supported/,
    );
    unreadable(() => parseCrl(patch(built.der, sha256, oid('1.2.840.10045.4.3.3'), false)), /differs/);
  });

  it('a delta CRL, an unknown critical extension, duplicate extensions, extensions in a v1 CRL, a wrong version', () => {
    unreadable(
      () =>
        parseCrl(
          createCrl(root, { extensions: [{ oid: '2.5.29.27', critical: true, valueDer: derOf(new BaseCRLNumber(1)) }] })
            .der,
        ),
      /delta CRL/,
    );
    unreadable(
      () =>
        parseCrl(
          createCrl(root, {
            extensions: [{ oid: '1.2.3.4.5', critical: true, valueDer: derOf(AsnNullConverter.toASN(null)) }],
          }).der,
        ),
      /critical extension 1\.2\.3\.4\.5/,
    );
    unreadable(
      () => parseCrl(createCrl(root, { extensions: [{ oid: '2.5.29.20', valueDer: derOf(new CRLNumber(9)) }] }).der),
      /more than once/,
    );
    // A v1 TBSCertList with [0] extensions appended (the signature no longer matters: parsing fails first).
    const v1 = buildCrl({
      signingKey: root.privateKey,
      issuer: root.subject,
      thisUpdate: DEFAULT_NOT_BEFORE,
      nextUpdate: DEFAULT_NOT_AFTER,
      version: 1,
    });
    const [v1Tbs = Buffer.alloc(0), ...v1Rest] = elements(v1.der);
    const extensions = der.tlv(
      0xa0,
      derOf(
        new Extensions([new Extension({ extnID: '2.5.29.20', extnValue: new OctetString(derOf(new CRLNumber(1))) })]),
      ),
    );
    unreadable(
      () => parseCrl(der.sequence([der.sequence([...elements(v1Tbs), extensions]), ...v1Rest])),
      /v1 CRL cannot carry extensions/,
    );
    const [tbs = Buffer.alloc(0), ...rest] = elements(built.der);
    const version3 = der.sequence([integerDer(2), ...elements(tbs).slice(1)]); // INTEGER 2: v3
    unreadable(() => parseCrl(der.sequence([version3, ...rest])), /version must be v2/);
  });

  it('times must be YYMMDDHHMMSSZ / YYYYMMDDHHMMSSZ and real dates', () => {
    const thisUpdate = derOf(new Time(DEFAULT_NOT_BEFORE));
    const withTime = (time: Buffer) => {
      const [tbs = Buffer.alloc(0), ...rest] = elements(built.der);
      const fields = elements(tbs);
      const at = fields.findIndex((f) => f.equals(thisUpdate));
      assert.ok(at >= 0);
      fields[at] = time;
      return der.sequence([der.sequence(fields), ...rest]);
    };
    unreadable(() => parseCrl(withTime(der.tlv(0x17, Buffer.from('0001010000Z')))), /thisUpdate/);
    unreadable(() => parseCrl(withTime(der.tlv(0x17, Buffer.from('000231000000Z')))), /not a valid date/);
    unreadable(() => parseCrl(withTime(der.tlv(0x18, Buffer.from('20000101000000.5Z')))), /thisUpdate/);
    unreadable(() => parseCrl(withTime(der.tlv(0x17, Buffer.from('000101000000+0100')))), /thisUpdate/);
    const generalized = derOf(new Time({ generalTime: new Date('2001-02-03T04:05:06Z') }));
    assert.equal(parseCrl(withTime(generalized)).thisUpdate.toISOString(), '2001-02-03T04:05:06.000Z');
  });
});

/** The complete encodings of the elements of a DER SEQUENCE. */
function elements(encoded: Buffer): Buffer[] {
  return children(readDer(encoded)).map((node) => Buffer.from(node.encoded));
}
