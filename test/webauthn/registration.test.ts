// verifyRegistration: WebAuthn L3 §7.1, one test per step, with the soft authenticator breaking exactly
// one thing at a time. Conformance: Resp-2 (client data), Resp-3 (attestation object), Resp-4 (algorithms),
// Resp-6 (packed self), Resp-7 (none).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ErrorName } from '../../src/errors/catalogue.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { COSE_ALGORITHMS } from '../../src/webauthn/cose.js';
import { createTrustEvaluator } from '../../src/webauthn/trust.js';
import type { TrustInput } from '../../src/webauthn/attestation/types.js';
import type { RegistrationExpectation } from '../../src/webauthn/types.js';
import {
  SoftAuthenticator,
  generateKeyPairFor,
  type RegisterOptions,
  type RegistrationBreak,
} from '../support/soft-authenticator.js';
import {
  COMMON_BREAK_ERRORS,
  authenticate,
  creationOptions,
  editStatement,
  failsWith,
  register,
  registrationExpectation,
  verifyRegistrationJSON,
} from './helpers.js';

function attempt(opts: RegisterOptions, expectation: Partial<RegistrationExpectation> = {}, authOptions = {}) {
  const options = creationOptions();
  const json = new SoftAuthenticator({ fmt: 'packed', ...authOptions }).register(options, opts);
  return () => verifyRegistrationJSON(json, registrationExpectation(options, expectation));
}

describe('verifyRegistration (WebAuthn L3 §7.1)', () => {
  it('accepts a well-formed packed self attestation and returns what the ceremony stores', () => {
    const auth = new SoftAuthenticator({ fmt: 'packed', counter: { start: 42 }, flags: { be: true, bs: true } });
    const r = register(auth);
    assert.deepEqual(r.verified.credentialId, Buffer.from(r.json.id, 'base64url'));
    assert.equal(r.verified.publicKey.alg, -7);
    assert.equal(r.verified.signCount, 42);
    assert.match(r.verified.aaguid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(r.verified.fmt, 'packed');
    assert.equal(r.verified.attestationType, 'self');
    assert.equal(r.verified.attestationTrusted, false);
    assert.equal(r.verified.authenticatorName, null);
    assert.deepEqual(r.verified.flags, { up: true, uv: true, be: true, bs: true, at: true, ed: false });
  });

  // One RSA key for the seven RSA algorithms: generating RSA keys dominates the run time otherwise.
  const rsaKey = generateKeyPairFor(-257);
  for (const { alg, name, family } of COSE_ALGORITHMS) {
    it(`Step 19 (§7.1) / Resp-4: registers a ${name} (${alg}) credential; §7.2 step 21 verifies its assertions`, () => {
      const auth = new SoftAuthenticator({ fmt: 'packed' });
      const keyPair = family === 'rsa-pss' || family === 'rsa-pkcs1' ? rsaKey : undefined;
      const r = register(auth, { alg, keyPair }, creationOptions([alg]));
      assert.equal(r.verified.publicKey.alg, alg);
      assert.equal(authenticate(auth, r).signCount, 1);
      failsWith(
        () => authenticate(auth, r, { breaks: 'flipSignature' }, { signCount: 1 }),
        'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      );
    });
  }

  it('Step 7 (§7.1): type must be webauthn.create (Resp-2 F-4, F-5)', () => {
    failsWith(attempt({ breaks: 'type' }), 'INVALID_OPERATION_TYPE');
  });

  it('Step 8 (§7.1): the challenge must be the issued one (Resp-2 F-10)', () => {
    failsWith(attempt({ breaks: 'challenge' }), 'CHALLENGE_NOT_MATCHED');
  });

  it('Step 9 (§7.1): the origin must be allowed (Resp-2 F-14), and must be an origin at all', () => {
    failsWith(attempt({ breaks: 'origin' }), 'ORIGIN_NOT_MATCHED');
    failsWith(attempt({ origin: 'not an origin' }, { isAllowedOrigin: () => true }), 'INVALID_ORIGIN');
  });

  it('Step 10 (§7.1): crossOrigin true or a topOrigin fail unless the application allows cross-origin ceremonies', () => {
    failsWith(attempt({ breaks: 'crossOrigin' }), 'CROSS_ORIGIN_NOT_ALLOWED');
    failsWith(attempt({ breaks: 'topOrigin' }), 'CROSS_ORIGIN_NOT_ALLOWED');
    const framed = { allowCrossOrigin: true, topOrigins: ['https://top.example'] };
    assert.doesNotThrow(attempt({ breaks: 'topOrigin' }, framed));
    assert.doesNotThrow(attempt({ breaks: 'topOrigin', crossOrigin: true }, framed));
  });

  it('Step 10 (§7.1): a cross-origin ceremony must name a topOrigin the application lists (TOP_ORIGIN_NOT_MATCHED)', () => {
    const framed = { allowCrossOrigin: true, topOrigins: ['https://top.example'] };
    // crossOrigin true without topOrigin (a Level 2 client) cannot show where it was embedded.
    failsWith(attempt({ breaks: 'crossOrigin' }, framed), 'TOP_ORIGIN_NOT_MATCHED', /names no topOrigin/);
    failsWith(
      attempt({ breaks: 'topOrigin' }, { allowCrossOrigin: true, topOrigins: ['https://other.example'] }),
      'TOP_ORIGIN_NOT_MATCHED',
      /not one of/,
    );
    failsWith(attempt({ breaks: 'topOrigin' }, { allowCrossOrigin: true }), 'TOP_ORIGIN_NOT_MATCHED');
  });

  it('Step 11 (§7.1): the statement is verified against SHA-256 of the exact clientDataJSON bytes', () => {
    failsWith(attempt({ breaks: 'signedData' }), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
    // A JSON key order or spacing the service never re-creates: still verifies (no re-serialisation).
    assert.doesNotThrow(attempt({ clientData: { extra: '  spaced  ', crossOrigin: undefined } }));
  });

  it('Step 12 (§7.1): tokenBinding of the wrong shape (Resp-2 F-15..F-17) and malformed authData (Resp-3 F-9, F-12)', () => {
    failsWith(attempt({ breaks: 'tokenBindingNotObject' }), 'TOKEN_BINDING_STATUS_MISSING');
    failsWith(attempt({ breaks: 'tokenBindingStatus' }), 'TOKEN_BINDING_STATUS_MISSING');
    failsWith(attempt({ breaks: 'atFlagCleared' }), 'INVALID_AUTHENTICATOR_DATA');
    failsWith(attempt({ breaks: 'trailingBytes' }), 'INVALID_AUTHENTICATOR_DATA');
  });

  it('Step 13 (§7.1): rpIdHash must be SHA-256 of the RP ID', () => {
    failsWith(attempt({ breaks: 'rpIdHash' }), 'RPID_HASH_NOT_MATCHED');
    failsWith(attempt({}, { rpId: 'other.example.test' }), 'RPID_HASH_NOT_MATCHED');
  });

  it('Step 14 (§7.1): UP must be set', () => {
    failsWith(attempt({ breaks: 'up' }), 'USER_PRESENCE_FLAG_NOT_SET');
  });

  it('Step 15 (§7.1): UV must be set when user verification is required, and only then', () => {
    failsWith(attempt({ breaks: 'uv' }, { requireUserVerification: true }), 'USER_VERIFICATION_FLAG_NOT_SET');
    assert.doesNotThrow(attempt({ breaks: 'uv' }, { requireUserVerification: false }));
  });

  it('Step 16 (§7.1): BS without BE fails; BE alone and BE with BS pass', () => {
    failsWith(attempt({ breaks: 'bsWithoutBe' }), 'INVALID_BACKUP_STATE_FLAG_SET');
    assert.equal(attempt({ flags: { be: true, bs: false } })().flags.be, true);
    assert.equal(attempt({ flags: { be: true, bs: true } })().flags.bs, true);
  });

  it("Step 19 (§7.1): the credential key's alg must be one of those offered", () => {
    failsWith(attempt({ alg: -257 }, { algorithms: [-7, -8] }), 'NOT_ALLOWED_COSE_ALGORITHM');
    failsWith(attempt({ alg: -65535 }, { algorithms: [-7, -257] }), 'NOT_ALLOWED_COSE_ALGORITHM');
  });

  it('Step 20 (§7.1): unknown authenticator extension outputs are accepted (Resp-3 P-1)', () => {
    const verify = attempt({ authenticatorExtensions: new Map([['example.extension', 'a value']]) });
    assert.equal(verify().flags.ed, true);
  });

  it('Step 21 (§7.1): an unknown fmt fails with UNSUPPORTED_ATTESTATION_FORMAT (Resp-5 F-1, Resp-6 F-3)', () => {
    failsWith(attempt({ breaks: 'unknownFmt' }), 'UNSUPPORTED_ATTESTATION_FORMAT');
    const options = creationOptions();
    const upper = editStatement(new SoftAuthenticator({ fmt: 'packed' }).register(options), (_s, obj) =>
      obj.set('fmt', 'Packed'),
    );
    failsWith(() => verifyRegistrationJSON(upper, registrationExpectation(options)), 'UNSUPPORTED_ATTESTATION_FORMAT');
  });

  it('Step 22 (§7.1): the statement must verify (none, packed self)', () => {
    assert.equal(attempt({}, {}, { fmt: 'none' })().attestationType, 'none');
    failsWith(attempt({ breaks: 'flipSignature' }), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL');
    failsWith(attempt({ breaks: 'attStmtAlg' }), 'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED');
  });

  it('Steps 23-24 (§7.1): the trust evaluator gets fmt, AAGUID, outcome and time, and may refuse', () => {
    const seen: TrustInput[] = [];
    const recording = {
      evaluate: (input: TrustInput) => (
        seen.push(input), { trusted: true, aaguidProven: true, authenticatorName: 'Test Key' }
      ),
    };
    const aaguid = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
    const verified = attempt({ aaguid }, { trust: recording })();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.fmt, 'packed');
    assert.equal(seen[0]!.aaguid, '01234567-89ab-cdef-0123-456789abcdef');
    assert.equal(seen[0]!.outcome.type, 'self');
    assert.equal(seen[0]!.now.toISOString(), '2026-06-01T00:00:00.000Z');
    assert.equal(verified.attestationTrusted, true);
    assert.equal(verified.authenticatorName, 'Test Key');
    failsWith(
      attempt({}, { trust: createTrustEvaluator({ anchors: [], requireTrusted: true }) }),
      'ATTESTATION_NOT_TRUSTED',
    );
  });

  it('Step 25 (§7.1): credential ids of 1 and 1023 bytes pass; 1024 bytes fail', () => {
    assert.equal(attempt({ credentialId: Buffer.alloc(1, 7) })().credentialId.length, 1);
    assert.equal(attempt({ credentialId: Buffer.alloc(1023, 7) })().credentialId.length, 1023);
    failsWith(attempt({ credentialId: Buffer.alloc(1024, 7) }), 'INVALID_CREDENTIAL_ID_LENGTH');
  });
});

describe('attestation statements, wave 1 formats (§8.7 none, §8.2 packed self)', () => {
  function statementFails(fmt: string, edit: (attStmt: Map<string, CborEncodable>) => void, code: ErrorName) {
    const options = creationOptions();
    const json = editStatement(new SoftAuthenticator({ fmt }).register(options), edit);
    failsWith(() => verifyRegistrationJSON(json, registrationExpectation(options)), code);
  }

  it('none: attStmt must be empty (Resp-7 F-1)', () => {
    statementFails('none', (s) => s.set('alg', -7), 'INVALID_ATTESTATION_FORMAT');
  });

  it('packed: attStmt empty, alg missing or not a number, sig missing, not bytes or empty (Resp-3 F-13..F-19)', () => {
    statementFails('packed', (s) => s.clear(), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.delete('alg'), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('alg', '-7'), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('alg', -42), 'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED');
    statementFails('packed', (s) => s.delete('sig'), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('sig', 'text'), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('sig', Buffer.alloc(0)), 'INVALID_ATTESTATION_FORMAT');
  });

  it('packed: x5c present but not an array, empty, or of non-byte entries (Resp-5 F-4, F-5); bytes that are no certificate', () => {
    statementFails('packed', (s) => s.set('x5c', Buffer.alloc(10)), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('x5c', []), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('x5c', ['text']), 'INVALID_ATTESTATION_FORMAT');
    statementFails('packed', (s) => s.set('x5c', [Buffer.from('not a certificate')]), 'CERTIFICATE_UNREADABLE');
  });
});

describe('soft authenticator: every registration break makes exactly its own check fail', () => {
  const expected: Record<RegistrationBreak, ErrorName> = {
    ...COMMON_BREAK_ERRORS,
    signedData: 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
    flipSignature: 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
    atFlagCleared: 'INVALID_AUTHENTICATOR_DATA',
    attStmtAlg: 'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
    unknownFmt: 'UNSUPPORTED_ATTESTATION_FORMAT',
    credentialIdMismatch: 'CREDENTIAL_ID_NOT_MATCHED',
    rawIdMismatch: 'CREDENTIAL_ID_NOT_MATCHED',
  };
  for (const [brk, code] of Object.entries(expected) as [RegistrationBreak, ErrorName][]) {
    it(`${brk} → ${code}`, () => failsWith(attempt({ breaks: brk }, { requireUserVerification: true }), code));
  }
});
