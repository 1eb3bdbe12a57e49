// "packed" attestation, WebAuthn L3 §8.2 (self and full) and the certificate requirements of §8.2.1.
// Conformance: Resp-5 P-1, P-2, F-2, F-3, F-8, F-13, F-14; Resp-6 P-1, F-1; Resp-3 F-13..F-19 (registration.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPair } from '../../support/keys.js';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import type { RegistrationExpectation } from '../../../src/webauthn/types.js';
import {
  aaguidExtension,
  createChain,
  createLeaf,
  createRoot,
  generateKey,
  type IssueOptions,
  type KeyPair,
} from '../../support/pki.js';
import { SoftAuthenticator, type RegisterOptions } from '../../support/soft-authenticator.js';
import {
  HOSTILE_X5C_ENTRIES,
  creationOptions,
  editStatement,
  failsWith,
  registrationExpectation,
  verifyRegistrationJSON,
} from '../helpers.js';

const AAGUID = Buffer.from('326adcf00cef46d0939298d6c4a84a72', 'hex');

/** A full packed registration whose attestation leaf is made with `leaf` options (chain root → leaf). */
function full(
  leaf: IssueOptions = {},
  opts: RegisterOptions = {},
  expectation: Partial<RegistrationExpectation> = {},
  intermediateCount = 0,
) {
  const chain = createChain({ intermediateCount, leaf: { extensions: [aaguidExtension(AAGUID)], ...leaf } });
  const options = creationOptions();
  const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
    statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } },
    ...opts,
  });
  return { chain, verify: () => verifyRegistrationJSON(json, registrationExpectation(options, expectation)) };
}

describe('packed full attestation (§8.2, x5c present)', () => {
  it('Resp-5 P-1: a valid statement is "basic" with x5c as trust path, untrusted without anchors', () => {
    const { chain, verify } = full();
    const v = verify();
    assert.equal(v.attestationType, 'basic');
    assert.equal(v.attestationTrusted, false);
    assert.equal(v.fmt, 'packed');
    assert.equal(v.aaguid, '326adcf0-0cef-46d0-9392-98d6c4a84a72');
    assert.ok(chain.leaf.cert);
  });

  it("Resp-5 P-2: leaf + intermediate chaining to a configured root is trusted (chain checks are the evaluator's)", () => {
    const chain = createChain({ intermediateCount: 1, leaf: { extensions: [aaguidExtension(AAGUID)] } });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
      statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } },
    });
    const trust = createTrustEvaluator({ anchors: [chain.root.cert], requireTrusted: true });
    const v = verifyRegistrationJSON(json, registrationExpectation(options, { trust }));
    assert.equal(v.attestationTrusted, true);
  });

  it('passes the whole x5c, leaf first, to the trust evaluator', () => {
    let seen: readonly string[] = [];
    const trust = {
      evaluate: (input: { outcome: { trustPath: readonly { fingerprint256: string }[] } }) => {
        seen = input.outcome.trustPath.map((c) => c.fingerprint256);
        return { trusted: false, aaguidProven: false, authenticatorName: null };
      },
    };
    const { chain, verify } = full({}, {}, { trust }, 2);
    verify();
    assert.deepEqual(seen, [
      chain.leaf.cert.fingerprint256,
      ...[...chain.intermediates].reverse().map((c) => c.cert.fingerprint256),
    ]);
  });

  it('accepts leaves of every key type with the matching alg (P-384/ES384, RSA/RS256, RSA/PS256, Ed25519/EdDSA)', () => {
    for (const [kind, alg] of [
      ['p384', -35],
      ['rsa2048', -257],
      ['rsa2048', -37],
      ['ed25519', -8],
    ] as const) {
      const chain = createChain({ intermediateCount: 0, leaf: { key: kind, extensions: [aaguidExtension(AAGUID)] } });
      const options = creationOptions();
      const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
        statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey, alg } },
      });
      assert.equal(
        verifyRegistrationJSON(json, registrationExpectation(options)).attestationType,
        'basic',
        `${kind}/${alg}`,
      );
    }
  });

  it('Resp-5 F-2: a damaged sig fails', () => {
    failsWith(full({}, { breaks: 'flipSignature' }).verify, 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
    failsWith(full({}, { breaks: 'signedData' }).verify, 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
  });

  it('Resp-5 F-3: removing x5c leaves a leaf-key sig that fails as self attestation', () => {
    const chain = createChain({ intermediateCount: 0 });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed' }).register(options, {
      statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } },
    });
    const edited = editStatement(json, (attStmt) => attStmt.delete('x5c'));
    failsWith(
      () => verifyRegistrationJSON(edited, registrationExpectation(options)),
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
    );
  });

  it('Resp-5 F-8: a leaf key that does not fit alg (secp256k1 under ES256) fails', () => {
    const k1: KeyPair = generateKeyPair({ type: 'ec', curve: 'secp256k1' });
    const chain = createChain({ intermediateCount: 0, leaf: { key: k1, extensions: [aaguidExtension(AAGUID)] } });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
      statement: { attestation: { x5c: chain.x5c, privateKey: k1.privateKey, alg: -7 } },
    });
    failsWith(
      () => verifyRegistrationJSON(json, registrationExpectation(options)),
      'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
    );
  });

  it('an alg outside the table fails with INVALID_COSE_ALGORITHM, a P-256 leaf under RS256 with PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED', () => {
    failsWith(full({}, { breaks: 'attStmtAlg' }).verify, 'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED');
    const chain = createChain({ intermediateCount: 0, leaf: { extensions: [aaguidExtension(AAGUID)] } });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
      statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } },
    });
    const edited = editStatement(json, (attStmt) => attStmt.set('alg', -42));
    failsWith(() => verifyRegistrationJSON(edited, registrationExpectation(options)), 'INVALID_COSE_ALGORITHM');
  });

  it("Resp-5 F-13: a sig made with another key than the leaf's fails", () => {
    const chain = createChain({ intermediateCount: 0, leaf: { extensions: [aaguidExtension(AAGUID)] } });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
      statement: { attestation: { x5c: chain.x5c, privateKey: generateKey('p256').privateKey } },
    });
    failsWith(
      () => verifyRegistrationJSON(json, registrationExpectation(options)),
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
    );
  });

  it('Resp-5 F-14: a sig made with the credential key (self) while x5c is present fails', () => {
    const chain = createChain({ intermediateCount: 0, leaf: { extensions: [aaguidExtension(AAGUID)] } });
    const options = creationOptions();
    const selfSigned = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options);
    const edited = editStatement(selfSigned, (attStmt) => attStmt.set('x5c', [...chain.x5c]));
    failsWith(
      () => verifyRegistrationJSON(edited, registrationExpectation(options)),
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
    );
  });
});

describe('packed attestation certificate requirements (§8.2.1)', () => {
  const certError = (leaf: IssueOptions, detail: RegExp) =>
    failsWith(full(leaf).verify, 'ATTESTATION_CERTIFICATE_ERROR', detail);

  it('version must be 3', () => {
    certError(
      {
        version: 1,
        extensions: undefined,
        basicConstraints: undefined,
        keyUsage: undefined,
        subjectKeyIdentifier: false,
      },
      /version 1/,
    );
  });

  it('subject C must be an ISO 3166 code, O, OU = "Authenticator Attestation" and CN present', () => {
    const base = { C: 'US', O: 'Maker', OU: 'Authenticator Attestation', CN: 'Leaf' };
    certError({ subject: { ...base, C: 'USA' } }, /subject C/);
    certError({ subject: { ...base, C: 'us' } }, /subject C/);
    certError({ subject: { O: 'Maker', OU: 'Authenticator Attestation', CN: 'Leaf' } }, /subject C/);
    certError({ subject: { C: 'US', OU: 'Authenticator Attestation', CN: 'Leaf' } }, /subject O/);
    certError({ subject: { ...base, OU: 'Other' } }, /subject OU/);
    certError({ subject: { C: 'US', O: 'Maker', CN: 'Leaf' } }, /subject OU/);
    certError({ subject: { C: 'US', O: 'Maker', OU: 'Authenticator Attestation' } }, /subject CN/);
    assert.doesNotThrow(full({ subject: base }).verify);
  });

  it('basic constraints CA must be false', () => {
    certError({ basicConstraints: { ca: true } }, /CA/);
  });

  it('basic constraints CA:true fails even when key usage lacks keyCertSign (X509Certificate.ca is false then)', () => {
    const leaf = { basicConstraints: { ca: true }, keyUsage: ['digitalSignature'] as const };
    assert.equal(full(leaf).chain.leaf.cert.ca, false, 'OpenSSL does not count this leaf as a CA');
    certError(leaf, /must not be a CA/);
  });

  it("the AAGUID extension, when present, must not be critical and must equal authData's AAGUID", () => {
    certError({ extensions: [aaguidExtension(AAGUID, true)] }, /critical/);
    failsWith(
      full({ extensions: [aaguidExtension('00000000-0000-0000-0000-000000000001')] }).verify,
      'PACKED_ATTESTATION_AAGUID_NOT_MATCHED',
    );
    assert.doesNotThrow(full({ extensions: [] }).verify);
  });

  it('an AAGUID extension that is not an OCTET STRING is a certificate error', () => {
    certError(
      { extensions: [{ oid: '1.3.6.1.4.1.45724.1.1.4', valueDer: Buffer.from([0x05, 0x00]) }] },
      /AAGUID extension/,
    );
  });

  it('works with certificates issued directly by a root as well as through intermediates', () => {
    const root = createRoot();
    const leaf = createLeaf(root, { extensions: [aaguidExtension(AAGUID)] });
    const options = creationOptions();
    const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
      statement: { attestation: { x5c: [leaf.der], privateKey: leaf.privateKey } },
    });
    const trust = createTrustEvaluator({ anchors: [root.cert], requireTrusted: true });
    assert.equal(verifyRegistrationJSON(json, registrationExpectation(options, { trust })).attestationTrusted, true);
  });
});

describe('packed x5c hostile input: a named error, never a crash', () => {
  for (const [title, entry, code] of HOSTILE_X5C_ENTRIES) {
    for (const position of [0, 1]) {
      it(`x5c[${position}] is ${title} → ${code}`, () => {
        const chain = createChain({ intermediateCount: 1, leaf: { extensions: [aaguidExtension(AAGUID)] } });
        const options = creationOptions();
        const json = new SoftAuthenticator({ fmt: 'packed', aaguid: AAGUID }).register(options, {
          statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } },
        });
        const edited = editStatement(json, (attStmt) => {
          const x5c = [...chain.x5c] as CborEncodable[];
          x5c[position] = entry();
          attStmt.set('x5c', x5c);
        });
        failsWith(() => verifyRegistrationJSON(edited, registrationExpectation(options)), code, /packed: x5c\[/);
      });
    }
  }
});
