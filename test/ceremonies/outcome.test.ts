// The sign-in verdict (docs/api.md "Sign-in verdict"): every ok result of both result operations, in both
// variants, carries `amr` (RFC 8176) and `acr` (OpenID EAP) as the mapping says; no failure carries them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signInVerdict } from '../../src/ceremonies/outcome.js';
import { AssertionResultAnswerSchema, AttestationResultAnswerSchema } from '../../src/schemas/answers.js';
import { compile } from '../../src/schemas/typebox.js';
import type { InjectResponse } from '../../src/http/app.js';
import { Flow, Harness, applicationConfig, username } from '../support/harness.js';
import { LocalFlow, LocalRig } from './local/support.js';
import { createChain } from '../support/pki.js';
import type { Flags } from '../support/soft-authenticator.js';

const attestationAnswer = compile(AttestationResultAnswerSchema);
const assertionAnswer = compile(AssertionResultAnswerSchema);

let counter = 0;
const fresh = () => `verdict${++counter}`;

/** The verdict fields of an ok answer, after checking it against its operation's answer schema. */
function verdictOf(res: InjectResponse, operation: 'attestation' | 'assertion'): { amr: string[]; acr: string } {
  assert.equal(res.status, 200, res.body);
  const body = res.json();
  const check = operation === 'attestation' ? attestationAnswer : assertionAnswer;
  assert.deepEqual(check.failures(body), [], `the ${operation} answer fits its schema`);
  return { amr: body.amr, acr: body.acr };
}

function noVerdict(res: InjectResponse): void {
  assert.notEqual(res.status, 200);
  const body = res.json();
  assert.equal(body.status, 'failed');
  assert.equal('amr' in body, false, 'a failure has no amr');
  assert.equal('acr' in body, false, 'a failure has no acr');
}

const DEVICE_BOUND: Flags = { up: true, uv: true, be: false, bs: false };
const SYNCED: Flags = { up: true, uv: true, be: true, bs: true };
const PRESENCE_ONLY: Flags = { up: true, uv: false, be: false, bs: false };

describe('signInVerdict: the mapping', () => {
  const flags = (f: Flags) => ({ up: false, uv: false, be: false, bs: false, at: false, ed: false, ...f });
  it('hwk/swk by BE, user by UP, mfa by UV; phrh only device-bound with a proven AAGUID', () => {
    assert.deepEqual(signInVerdict(flags(DEVICE_BOUND), false), { amr: ['hwk', 'user', 'mfa'], acr: 'phr' });
    assert.deepEqual(signInVerdict(flags(DEVICE_BOUND), true), { amr: ['hwk', 'user', 'mfa'], acr: 'phrh' });
    assert.deepEqual(signInVerdict(flags(SYNCED), true), { amr: ['swk', 'user', 'mfa'], acr: 'phr' });
    assert.deepEqual(signInVerdict(flags(PRESENCE_ONLY), false), { amr: ['hwk', 'user'], acr: 'phr' });
    assert.deepEqual(signInVerdict(flags({ up: false, uv: false, be: true }), false), { amr: ['swk'], acr: 'phr' });
  });
});

describe('the verdict on every ok result, standard variant', () => {
  for (const [name, flags, amr] of [
    ['device-bound, UV', DEVICE_BOUND, ['hwk', 'user', 'mfa']],
    ['synced, UV', SYNCED, ['swk', 'user', 'mfa']],
    ['device-bound, presence only', PRESENCE_ONLY, ['hwk', 'user']],
  ] as const) {
    it(`${name}: registration and sign-in say amr ${amr.join(',')}, acr phr (no proven AAGUID)`, async () => {
      const flow = new Flow(new Harness(), username(fresh()), { flags });
      assert.deepEqual(verdictOf((await flow.register()).res, 'attestation'), { amr: [...amr], acr: 'phr' });
      assert.deepEqual(verdictOf((await flow.authenticate()).res, 'assertion'), { amr: [...amr], acr: 'phr' });
    });
  }

  it('a trusted attestation that proved the AAGUID: phrh when device-bound, at registration and at sign-in', async () => {
    const chain = createChain({ intermediateCount: 1 });
    const h = new Harness({ anchors: [chain.root.cert] });
    const statement = { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } };
    const bound = new Flow(h, username(fresh()), { fmt: 'packed', flags: DEVICE_BOUND });
    const registered = (await bound.register({ statement })).res;
    assert.equal(registered.json().authenticatorVerified, true, 'the AAGUID was proven');
    assert.deepEqual(verdictOf(registered, 'attestation'), { amr: ['hwk', 'user', 'mfa'], acr: 'phrh' });
    assert.deepEqual(verdictOf((await bound.authenticate()).res, 'assertion'), {
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phrh',
    });
    // The same proven model, synced: not hardware-protected.
    const synced = new Flow(h, username(fresh()), { fmt: 'packed', flags: SYNCED });
    assert.equal(verdictOf((await synced.register({ statement })).res, 'attestation').acr, 'phr');
    assert.equal(verdictOf((await synced.authenticate()).res, 'assertion').acr, 'phr');
  });

  it('failures of both operations carry neither', async () => {
    const flow = new Flow(new Harness(), username(fresh()));
    noVerdict((await flow.register({ breaks: 'challenge' })).res);
    assert.equal((await flow.register()).res.status, 200);
    noVerdict((await flow.authenticate({ breaks: 'flipSignature' })).res);
    noVerdict((await flow.authenticate({ breaks: 'origin' })).res);
  });
});

describe('the verdict on every ok result, local variant', () => {
  it('registration and sign-in carry it; a proven AAGUID sealed in the blob gives phrh at sign-in', async () => {
    const plain = new LocalFlow(new LocalRig(), fresh(), { flags: SYNCED });
    const { res, kept } = await plain.register();
    assert.deepEqual(verdictOf(res, 'attestation'), { amr: ['swk', 'user', 'mfa'], acr: 'phr' });
    assert.deepEqual(verdictOf((await plain.authenticate(kept!)).res, 'assertion'), {
      amr: ['swk', 'user', 'mfa'],
      acr: 'phr',
    });

    const chain = createChain({ intermediateCount: 1 });
    const rig = new LocalRig({ anchors: [chain.root.cert], apps: [applicationConfig()] });
    const proven = new LocalFlow(rig, fresh(), { fmt: 'packed', flags: PRESENCE_ONLY });
    const statement = { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } };
    const registered = await proven.register({ statement });
    assert.deepEqual(verdictOf(registered.res, 'attestation'), { amr: ['hwk', 'user'], acr: 'phrh' });
    assert.deepEqual(verdictOf((await proven.authenticate(registered.kept!)).res, 'assertion'), {
      amr: ['hwk', 'user'],
      acr: 'phrh',
    });
  });

  it('failures carry neither', async () => {
    const flow = new LocalFlow(new LocalRig(), fresh());
    noVerdict((await flow.register({ breaks: 'rpIdHash' })).res);
    const kept = await flow.registered();
    noVerdict((await flow.authenticate(kept, { breaks: 'flipSignature' })).res);
  });
});
