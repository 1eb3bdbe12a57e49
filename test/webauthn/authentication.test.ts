// verifyAuthentication: WebAuthn L3 §7.2, one test per step. Conformance: assertion Resp-1 F-20,
// Resp-2 (client data), Resp-3 (authenticator data, counter, UV).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ErrorName } from '../../src/errors/catalogue.js';
import type { AuthenticationExpectation } from '../../src/webauthn/types.js';
import {
  SoftAuthenticator,
  type AuthenticateOptions,
  type AuthenticationBreak,
  type SoftAuthenticatorOptions,
} from '../support/soft-authenticator.js';
import {
  COMMON_BREAK_ERRORS,
  authenticate,
  authenticationExpectation,
  failsWith,
  register,
  requestOptions,
  verifyAuthenticationJSON,
} from './helpers.js';

function setup(defaults: SoftAuthenticatorOptions = {}) {
  const auth = new SoftAuthenticator({ fmt: 'none', ...defaults });
  const registered = register(auth);
  const run =
    (
      opts: AuthenticateOptions = {},
      stored: { signCount?: number; backupEligible?: boolean } = {},
      overrides: Partial<AuthenticationExpectation> = {},
    ) =>
    () =>
      authenticate(auth, registered, opts, stored, overrides);
  return { auth, registered, run };
}

describe('verifyAuthentication (WebAuthn L3 §7.2)', () => {
  it('accepts a well-formed assertion and returns counter, flags and no warnings', () => {
    const { run } = setup({ counter: { start: 10 } });
    const v = run()();
    assert.equal(v.signCount, 11);
    assert.deepEqual(v.flags, { up: true, uv: true, be: false, bs: false, at: false, ed: false });
    assert.equal(v.cloneWarning, false);
    assert.equal(v.backupEligibilityChanged, false);
  });

  it("Step 6 (§7.2): a present userHandle must be the owner's; absent or null is accepted", () => {
    const { run } = setup();
    failsWith(run({ breaks: 'userHandle' }), 'USER_HANDLE_NOT_MATCHED');
    assert.doesNotThrow(run({ userHandle: null }));
    assert.doesNotThrow(run({ userHandle: '' }));
  });

  it('Step 10 (§7.2): type must be webauthn.get (Resp-2 F-4, F-5)', () => {
    failsWith(setup().run({ breaks: 'type' }), 'INVALID_OPERATION_TYPE');
  });

  it('Step 11 (§7.2): the challenge must be the issued one (Resp-2 F-10)', () => {
    failsWith(setup().run({ breaks: 'challenge' }), 'CHALLENGE_NOT_MATCHED');
  });

  it('Step 12 (§7.2): the origin must be allowed, and an origin', () => {
    const { run } = setup();
    failsWith(run({ breaks: 'origin' }), 'ORIGIN_NOT_MATCHED');
    failsWith(run({ origin: '::not-a-url' }, {}, { isAllowedOrigin: () => true }), 'INVALID_ORIGIN');
  });

  it('Step 13 (§7.2): crossOrigin or topOrigin fail unless allowed', () => {
    const { run } = setup();
    failsWith(run({ breaks: 'crossOrigin' }), 'CROSS_ORIGIN_NOT_ALLOWED');
    failsWith(run({ breaks: 'topOrigin' }), 'CROSS_ORIGIN_NOT_ALLOWED');
    assert.doesNotThrow(
      run(
        { breaks: 'topOrigin', crossOrigin: true },
        {},
        { allowCrossOrigin: true, topOrigins: ['https://top.example'] },
      ),
    );
    failsWith(
      run({ breaks: 'crossOrigin' }, {}, { allowCrossOrigin: true, topOrigins: ['https://top.example'] }),
      'TOP_ORIGIN_NOT_MATCHED',
    );
    failsWith(
      run({ breaks: 'topOrigin' }, {}, { allowCrossOrigin: true, topOrigins: ['https://elsewhere.example'] }),
      'TOP_ORIGIN_NOT_MATCHED',
    );
  });

  it('Step 14 (§7.2): rpIdHash must be SHA-256 of the RP ID (Resp-3 F-2)', () => {
    failsWith(setup().run({ breaks: 'rpIdHash' }), 'RPID_HASH_NOT_MATCHED');
  });

  it("Step 15 (§7.2): UP is required, also where the conformance tool's P-4/P-7 omit it (docs/decisions.md)", () => {
    failsWith(setup().run({ breaks: 'up' }), 'USER_PRESENCE_FLAG_NOT_SET');
    failsWith(setup().run({ flags: { up: false, uv: false } }), 'USER_PRESENCE_FLAG_NOT_SET');
  });

  it('Step 16 (§7.2): UV is required only when the ceremony requires it (Resp-3 P-2, P-5, F-5)', () => {
    const { run } = setup();
    failsWith(run({ breaks: 'uv' }, {}, { requireUserVerification: true }), 'USER_VERIFICATION_FLAG_NOT_SET');
    assert.doesNotThrow(run({ breaks: 'uv' }));
    assert.doesNotThrow(run({}, {}, { requireUserVerification: true }));
  });

  it('Step 17 (§7.2): BS without BE fails', () => {
    failsWith(setup().run({ breaks: 'bsWithoutBe' }), 'INVALID_BACKUP_STATE_FLAG_SET');
  });

  it('Step 18 (§7.2): BE changing is reported, never failed', () => {
    const { run } = setup();
    assert.equal(run({ flags: { be: true, bs: true } })().backupEligibilityChanged, true);
    assert.equal(run({ flags: { be: false } }, { backupEligible: true })().backupEligibilityChanged, true);
    assert.equal(run({ flags: { be: true } }, { backupEligible: true })().backupEligibilityChanged, false);
  });

  it('Step 19 (§7.2): unknown authenticator extension outputs are accepted (Resp-3 P-8)', () => {
    const v = setup().run({ authenticatorExtensions: new Map([['example.extension', 'x']]) })();
    assert.equal(v.flags.ed, true);
  });

  it('Step 21 (§7.2): the signature must verify over authData ‖ SHA-256(clientDataJSON) (Resp-1 F-20, Resp-3 F-3)', () => {
    const { run } = setup();
    failsWith(run({ breaks: 'flipSignature' }), 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
    failsWith(run({ breaks: 'signedData' }), 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
    failsWith(run({ breaks: 'trailingBytes' }), 'INVALID_AUTHENTICATOR_DATA');
  });

  it("Step 21 (§7.2): a signature by another credential's key fails", () => {
    const { auth, registered } = setup();
    const other = register(auth);
    const options = requestOptions([other.json.id]);
    const json = auth.authenticate(options);
    const expected = authenticationExpectation(registered, options);
    failsWith(
      () => verifyAuthenticationJSON({ ...json, response: { ...json.response, userHandle: null } }, expected),
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
    );
  });

  it('Step 22 (§7.2): both counters zero is normal (synced passkeys, Resp-3 P-1)', () => {
    const { run } = setup({ counter: 'zero' });
    const v = run()();
    assert.equal(v.signCount, 0);
    assert.equal(v.cloneWarning, false);
    assert.equal(run()().signCount, 0);
  });

  it('Step 22 (§7.2): a counter that did not increase fails under "strict" (Resp-3 F-4)', () => {
    const { run } = setup({ counter: { start: 5 } });
    failsWith(run({ breaks: 'counterNotIncreased' }), 'SIGNATURE_COUNTER_NOT_INCREASED');
    failsWith(run({ signCount: 4 }, { signCount: 5 }), 'SIGNATURE_COUNTER_NOT_INCREASED');
    failsWith(run({ signCount: 0 }, { signCount: 5 }), 'SIGNATURE_COUNTER_NOT_INCREASED');
    assert.equal(run({ signCount: 6 }, { signCount: 5 })().signCount, 6);
    assert.equal(run({ signCount: 1 }, { signCount: 0 })().signCount, 1);
  });

  it('Step 22 (§7.2): under "warn" the same assertion is accepted with a clone warning', () => {
    const { run } = setup({ counter: { start: 5 } });
    const v = run({ breaks: 'counterNotIncreased' }, {}, { counterPolicy: 'warn' })();
    assert.equal(v.cloneWarning, true);
    assert.equal(v.signCount, 5);
    assert.equal(run({}, { signCount: 5 }, { counterPolicy: 'warn' })().cloneWarning, false);
  });
});

describe('soft authenticator: every authentication break makes exactly its own check fail', () => {
  const expected: Record<AuthenticationBreak, ErrorName> = {
    ...COMMON_BREAK_ERRORS,
    signedData: 'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
    flipSignature: 'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
    counterNotIncreased: 'SIGNATURE_COUNTER_NOT_INCREASED',
    userHandle: 'USER_HANDLE_NOT_MATCHED',
    rawIdMismatch: 'CREDENTIAL_ID_NOT_MATCHED',
  };
  for (const [brk, code] of Object.entries(expected) as [AuthenticationBreak, ErrorName][]) {
    it(`${brk} → ${code}`, () =>
      failsWith(setup({ counter: { start: 3 } }).run({ breaks: brk }, {}, { requireUserVerification: true }), code));
  }
});
