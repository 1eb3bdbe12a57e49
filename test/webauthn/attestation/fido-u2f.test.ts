// "fido-u2f" attestation, WebAuthn L3 §8.6. Conformance Resp-8 P-1, F-1, F-2.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CborEncodable } from '../../../src/webauthn/cbor-encode.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import type { RegistrationExpectation } from '../../../src/webauthn/types.js';
import { createChain, type KeyKind } from '../../support/pki.js';
import { SoftAuthenticator, type RegisterOptions } from '../../support/soft-authenticator.js';
import {
  HOSTILE_X5C_ENTRIES,
  creationOptions,
  editStatement,
  failsWith,
  registrationExpectation,
  verifyRegistrationJSON,
} from '../helpers.js';

function u2f(
  opts: RegisterOptions = {},
  expectation: Partial<RegistrationExpectation> = {},
  edit?: (attStmt: Map<string, CborEncodable>) => void,
) {
  const options = creationOptions();
  const made = new SoftAuthenticator({ fmt: 'fido-u2f' }).register(options, opts);
  const json = edit ? editStatement(made, edit) : made;
  return () => verifyRegistrationJSON(json, registrationExpectation(options, expectation));
}

function withCertificateKey(kind: KeyKind): RegisterOptions {
  const chain = createChain({ intermediateCount: 0, leaf: { key: kind } });
  return {
    statement: {
      attestation: {
        x5c: [chain.leaf.der],
        privateKey: chain.leaf.privateKey,
        alg: kind === 'p384' ? -35 : kind === 'rsa2048' ? -257 : -7,
      },
    },
  };
}

describe('fido-u2f attestation (§8.6)', () => {
  it('Resp-8 P-1: a U2F registration verifies as "basic" with the certificate as trust path', () => {
    const v = u2f()();
    assert.equal(v.fmt, 'fido-u2f');
    assert.equal(v.attestationType, 'basic');
    assert.equal(v.aaguid, '00000000-0000-0000-0000-000000000000');
    assert.equal(v.publicKey.alg, -7);
  });

  it('chains to a configured root', () => {
    const chain = createChain({ intermediateCount: 0 });
    const trust = createTrustEvaluator({ anchors: [chain.root.cert], requireTrusted: true });
    const v = u2f(
      { statement: { attestation: { x5c: [chain.leaf.der], privateKey: chain.leaf.privateKey } } },
      { trust },
    )();
    assert.equal(v.attestationTrusted, true);
  });

  it('Resp-8 F-1: a non-zero AAGUID fails', () => {
    failsWith(
      u2f({ aaguid: Buffer.from('937dd8ca647e4ed3972943a796cf572a', 'hex') }),
      'U2F_ATTESTATION_AAGUID_INVALID',
    );
  });

  it('Resp-8 F-2: a bad sig, or a sig over other data, fails', () => {
    failsWith(u2f({ breaks: 'flipSignature' }), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
    failsWith(u2f({ breaks: 'signedData' }), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
  });

  it('Step 1: x5c and sig must be present and well-formed', () => {
    failsWith(
      u2f({}, {}, (s) => s.delete('x5c')),
      'INVALID_ATTESTATION_FORMAT',
    );
    failsWith(
      u2f({}, {}, (s) => s.set('x5c', [])),
      'INVALID_ATTESTATION_FORMAT',
    );
    failsWith(
      u2f({}, {}, (s) => s.delete('sig')),
      'INVALID_ATTESTATION_FORMAT',
    );
    failsWith(
      u2f({}, {}, (s) => s.set('sig', 1)),
      'INVALID_ATTESTATION_FORMAT',
    );
  });

  it('Step 2: exactly one certificate', () => {
    const chain = createChain({ intermediateCount: 1 });
    failsWith(
      u2f({ statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } } }),
      'INVALID_ATTESTATION_FORMAT',
    );
  });

  it('Step 2: the certificate key must be EC P-256', () => {
    failsWith(u2f(withCertificateKey('p384')), 'U2F_ATTESTATION_KEY_NOT_ECC_TYPE');
    failsWith(u2f(withCertificateKey('rsa2048')), 'U2F_ATTESTATION_KEY_NOT_ECC_TYPE');
  });

  it('Steps 3-4: the credential key must be an ES256 P-256 key', () => {
    failsWith(u2f({ alg: -35 }), 'U2F_ATTESTATION_KEY_NOT_ECC_TYPE');
    failsWith(u2f({ alg: -8 }), 'U2F_ATTESTATION_KEY_NOT_ECC_TYPE');
  });
});

describe('fido-u2f x5c hostile input: a named error, never a crash', () => {
  for (const [title, entry, code] of HOSTILE_X5C_ENTRIES) {
    it(`x5c[0] is ${title} → ${code}`, () => {
      failsWith(
        u2f({}, {}, (s) => s.set('x5c', [entry()])),
        code,
        /fido-u2f: x5c\[0\]/,
      );
    });
  }
});
