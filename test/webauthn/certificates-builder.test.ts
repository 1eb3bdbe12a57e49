// The tests' X.509 builder (on @peculiar/asn1-x509) and our DER reader, checked against each other and
// against OpenSSL (node:crypto X509Certificate), which is the independent judge of what the builder produces.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { AsnObjectIdentifierConverter, AsnPropTypes, OctetString } from '@peculiar/asn1-schema';
import { Time } from '@peculiar/asn1-x509';
import { defineSequence, derOf, integerDer } from '../support/asn1-schema.js';
import { buildCertificate } from '../support/x509-builder.js';
import {
  Asn1Error,
  children,
  decodeBoolean,
  decodeInteger,
  decodeOid,
  readDer,
  sequenceOf,
} from '../../src/webauthn/asn1.js';
import { certificateVersion, findExtension, subjectAttributes } from '../../src/webauthn/x509.js';
import { aaguidExtension, createChain, createLeaf, createRoot, generateKey, type KeyKind } from '../support/pki.js';

describe('DER as the library writes it, read back by our reader', () => {
  const oid = (dotted: string) => derOf(AsnObjectIdentifierConverter.toASN(dotted));

  it('encodes integers minimally, including negatives and big values', () => {
    assert.equal(integerDer(0).toString('hex'), '020100');
    assert.equal(integerDer(127).toString('hex'), '02017f');
    assert.equal(integerDer(128).toString('hex'), '02020080');
    assert.equal(integerDer(-1).toString('hex'), '0201ff');
    assert.equal(integerDer(-128).toString('hex'), '020180');
    assert.equal(integerDer(-129).toString('hex'), '0202ff7f');
    assert.equal(integerDer(2n ** 64n).toString('hex'), '0209010000000000000000');
    for (const n of [0n, 1n, -1n, 255n, -256n, 2n ** 100n, -(2n ** 100n) - 7n]) {
      assert.equal(decodeInteger(readDer(integerDer(n))), n);
    }
  });

  it('encodes object identifiers and reads them back', () => {
    assert.equal(oid('1.2.840.113549').toString('hex'), '06062a864886f70d');
    for (const text of ['2.5.29.19', '1.3.6.1.4.1.11129.2.1.17', '2.999.3', '1.2.840.10045.4.3.2']) {
      assert.equal(decodeOid(readDer(oid(text))), text);
    }
  });

  it('uses long-form lengths and high tag numbers', () => {
    const big = derOf(new OctetString(Buffer.alloc(300)));
    assert.equal(big.subarray(0, 4).toString('hex'), '0482012c');
    class Tagged {
      value = 1;
    }
    defineSequence(Tagged, [['value', { type: AsnPropTypes.Integer, context: 709 }]]);
    const [high] = children(readDer(derOf(new Tagged())));
    assert.equal(high?.encoded.subarray(0, 3).toString('hex'), 'bf8545');
    assert.equal(high?.tagClass, 'context');
    assert.equal(high?.tagNumber, 709);
  });

  it('encodes times: UTCTime through 2049, GeneralizedTime from 2050', () => {
    assert.equal(
      derOf(new Time(new Date('2024-02-03T04:05:06Z')))
        .toString('latin1')
        .slice(2),
      '240203040506Z',
    );
    assert.equal(derOf(new Time(new Date('2050-01-01T00:00:00Z')))[0], 0x18);
  });
});

describe('DER reader', () => {
  it('rejects truncation, trailing bytes, indefinite and non-minimal lengths', () => {
    assert.throws(() => readDer(Buffer.from('0203010203', 'hex').subarray(0, 4)), Asn1Error);
    assert.throws(() => readDer(Buffer.from('02010100', 'hex')), Asn1Error);
    assert.throws(() => readDer(Buffer.from('308002010000', 'hex')), Asn1Error);
    assert.throws(() => readDer(Buffer.from('0281010a', 'hex')), Asn1Error);
    assert.equal(readDer(Buffer.from('0281010a', 'hex'), { lenientLengths: true }).value[0], 0x0a);
    assert.throws(() => decodeInteger(readDer(Buffer.from('02020001', 'hex'))), Asn1Error);
    assert.throws(() => decodeBoolean(readDer(Buffer.from('010101', 'hex'))), Asn1Error);
    assert.throws(() => readDer(Buffer.from('04ffffffff01', 'hex')), Asn1Error);
  });
});

describe('X.509 builder', () => {
  const kinds: KeyKind[] = ['p256', 'p384', 'p521', 'rsa2048', 'ed25519'];
  for (const kind of kinds) {
    it(`builds a self-signed certificate that OpenSSL accepts and verifies (${kind})`, () => {
      const key = generateKey(kind);
      const built = buildCertificate({
        publicKey: key.publicKey,
        signingKey: key.privateKey,
        subject: { C: 'SE', O: 'Example', OU: 'Authenticator Attestation', CN: `Example ${kind}` },
        serial: 0x1234n,
        notBefore: new Date('2024-01-01T00:00:00Z'),
        notAfter: new Date('2060-01-01T00:00:00Z'),
        basicConstraints: { ca: true, pathLength: 0 },
        keyUsage: ['keyCertSign', 'cRLSign', 'digitalSignature'],
      });
      assert.ok(built.cert.verify(key.publicKey));
      assert.equal(built.cert.ca, true);
      assert.equal(built.cert.serialNumber, '1234');
      assert.equal(Date.parse(built.cert.validTo), Date.parse('2060-01-01T00:00:00Z'));
      assert.deepEqual(subjectAttributes(built.cert), {
        C: 'SE',
        O: 'Example',
        OU: 'Authenticator Attestation',
        CN: `Example ${kind}`,
      });
      assert.equal(certificateVersion(built.cert), 3);
      assert.equal(new X509Certificate(built.pem).fingerprint256, built.cert.fingerprint256);
    });
  }

  it('chains root → intermediate → leaf with extensions, SAN and EKU', () => {
    const chain = createChain({
      leaf: {
        extensions: [aaguidExtension('f8a011f3-8c0a-4d15-8006-17111f9edc7d')],
        extendedKeyUsage: ['2.23.133.8.3'],
        subjectAltName: {
          dns: ['localhost'],
          ip: ['127.0.0.1', '::1'],
          directoryNames: [[{ type: '2.23.133.2.1', value: 'id:FFFFF1D0' }]],
        },
      },
    });
    const [intermediate] = chain.intermediates;
    assert.ok(intermediate);
    assert.ok(chain.leaf.cert.checkIssued(intermediate.cert) && chain.leaf.cert.verify(intermediate.publicKey));
    assert.ok(intermediate.cert.checkIssued(chain.root.cert) && intermediate.cert.verify(chain.root.publicKey));
    assert.equal(chain.leaf.cert.ca, false);
    assert.ok(chain.leaf.cert.checkHost('localhost'));
    assert.ok(chain.leaf.cert.checkIP('127.0.0.1'));
    assert.deepEqual(chain.leaf.cert.keyUsage, ['2.23.133.8.3']);
    const aaguid = findExtension(chain.leaf.cert, '1.3.6.1.4.1.45724.1.1.4');
    assert.equal(aaguid?.critical, false);
    assert.equal(aaguid?.value.toString('hex'), '0410f8a011f38c0a4d15800617111f9edc7d');
    const basic = findExtension(chain.leaf.cert, '2.5.29.19');
    assert.equal(basic?.critical, true);
    assert.deepEqual(sequenceOf(readDer(basic!.value)), []);
    assert.equal(findExtension(chain.leaf.cert, '1.2.3.4'), undefined);
    assert.equal(chain.x5c.length, 2);
  });

  it('builds version 1 certificates without extensions', () => {
    const root = createRoot();
    const leaf = createLeaf(root, { version: 1 });
    assert.equal(certificateVersion(leaf.cert), 1);
    assert.equal(findExtension(leaf.cert, '2.5.29.19'), undefined);
  });
});
