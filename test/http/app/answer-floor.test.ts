// The answer floor (`answerFloorMs`, src/http/answer-floor.ts) as callers meet it, in process (inject) and
// over a real socket: the answers that could tell a registered user from an unknown one leave no earlier than
// the floor after arrival; the others are not held. Time is the harness's fake clock with manual timers:
// a held answer comes only once the test moves the clock past the floor, so nothing here waits for real time
// beyond bounded polling.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { InjectResponse } from '../../../src/http/app.js';
import { DEFAULT_ANSWER_FLOOR_MS } from '../../../src/schemas/config.js';
import {
  DOMAIN,
  Flow,
  Harness,
  PATHS,
  applicationConfig,
  username,
  type HarnessOptions,
} from '../../support/harness.js';
import { SocketHarness } from '../../support/socket-harness.js';
import { LocalFlow, LocalRig } from '../../ceremonies/local/support.js';

const FLOOR = DEFAULT_ANSWER_FLOOR_MS;

/** Resolves with the promise, or fails the test after `ms` of real time (a held answer never comes by itself). */
async function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  const abort = new AbortController();
  const late = delay(ms, undefined, { signal: abort.signal }).then(() => {
    throw new Error(`not answered within ${ms} ms: held by the floor?`);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    abort.abort();
    late.catch(() => {});
  }
}

/**
 * Moves the fake clock on 1 ms at a time (letting the service and the socket run in between) until `answer`
 * settles; returns the answer and how far past the floor timer's start the clock was when it came.
 */
async function stepUntilAnswered(h: Harness, answer: Promise<InjectResponse>, maxMs = 4 * FLOOR) {
  let settled = false;
  let at = 0;
  const watched = answer.finally(() => {
    settled = true;
    at = h.clock.now();
  });
  for (let step = 0; step <= maxMs && !settled; step++) {
    await Promise.race([watched, delay(5)]);
    if (!settled) h.timers.advance(1);
  }
  const res = await within(watched);
  const timer = h.timers.started.at(-1);
  assert.ok(timer, 'no floor timer was started');
  return { res, afterStart: at - timer.startedAt, timer };
}

for (const transport of ['inject', 'socket'] as const) {
  describe(`the answer floor (${transport})`, () => {
    let h: Harness;
    const make = async (options: HarnessOptions = {}): Promise<Harness> =>
      transport === 'socket'
        ? SocketHarness.start({ timers: 'manual', ...options })
        : new Harness({ timers: 'manual', ...options });
    before(async () => {
      h = await make();
    });
    after(async () => {
      if (h instanceof SocketHarness) await h.close();
    });

    it('holds a by-name options answer, for a registered and an unknown user, until the floor', async () => {
      const flow = new Flow(h, username('holly'));
      // Registration is not held: it starts no timer (a held answer would never come by itself here).
      const started = h.timers.started.length;
      assert.equal((await within(flow.register())).res.status, 200);
      assert.equal(h.timers.started.length, started);

      for (const name of ['holly', 'nobody']) {
        const answer = h.post(PATHS.assertionOptions, { username: username(name) });
        const { res, afterStart, timer } = await stepUntilAnswered(h, answer);
        assert.equal(res.status, 200, res.body);
        assert.equal(timer.ms, FLOOR);
        assert.equal(timer.state, 'fired');
        assert.ok(afterStart >= FLOOR, `${name}: answered ${afterStart} ms after arrival, before the floor`);
      }
    });

    it('holds a failed assertion result until the floor; a successful one leaves at once', async () => {
      const flow = new Flow(h, username('fay'));
      assert.equal((await within(flow.register())).res.status, 200);
      const other = new Flow(h, username('fay-other'));
      assert.equal((await within(other.register())).res.status, 200);

      // Signed by another user's key on this user's offered credential id: a bad signature.
      const options = await stepUntilAnswered(h, h.post(PATHS.assertionOptions, { username: username('fay') }));
      const offered = options.res.json().allowCredentials[0].id as string;
      const made = other.authenticator.authenticate(options.res.json(), {
        credentialId: other.authenticator.credentials[0]!.id.toString('base64url'),
        userHandle: null,
      });
      const failed = await stepUntilAnswered(
        h,
        h.post(PATHS.assertionResult, { ...made, id: offered, rawId: offered }),
      );
      assert.equal(failed.res.json().errorMessage[0], 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
      assert.ok(failed.afterStart >= FLOOR, `answered ${failed.afterStart} ms after arrival`);

      const signIn = await stepUntilAnswered(h, h.post(PATHS.assertionOptions, { username: username('fay') }));
      const credential = JSON.parse(JSON.stringify(flow.authenticator.authenticate(signIn.res.json())));
      const before = h.clock.now();
      const ok = await within(h.post(PATHS.assertionResult, credential));
      assert.equal(ok.status, 200, ok.body);
      assert.equal(h.clock.now(), before, 'the clock was not moved: the ok result was not held');
      assert.equal(h.timers.started.at(-1)?.state, 'cleared');
    });

    it('holds the nameless probe (a real credential id, a wrong user handle), not the nameless options', async () => {
      const flow = new Flow(h, username('nell'));
      assert.equal((await within(flow.register())).res.status, 200);
      const before = h.clock.now();
      const res = await within(h.post(PATHS.assertionOptions, { username: `#${DOMAIN}` }));
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(res.json().allowCredentials, []);
      assert.equal(h.clock.now(), before);
      assert.equal(h.timers.started.at(-1)?.state, 'cleared');

      const made = flow.authenticator.authenticate(res.json(), {
        credentialId: flow.authenticator.credentials[0]!.id.toString('base64url'),
        userHandle: Buffer.alloc(32, 1).toString('base64url'),
      });
      const probe = await stepUntilAnswered(h, h.post(PATHS.assertionResult, made));
      assert.equal(probe.res.json().errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
      assert.ok(probe.afterStart >= FLOOR);
    });

    it('holds an options call that fails before its ceremony (the route decides, not the outcome)', async () => {
      const res = await stepUntilAnswered(h, h.post(PATHS.assertionOptions, { username: 7 }));
      assert.equal(res.res.status, 400);
      assert.ok(res.afterStart >= FLOOR);
    });

    it('0 switches it off: no timer, nothing held', async () => {
      const off = await make({ config: { answerFloorMs: 0 } });
      try {
        const res = await within(off.post(PATHS.assertionOptions, { username: username('nobody') }));
        assert.equal(res.status, 200, res.body);
        assert.deepEqual(off.timers.started, []);
      } finally {
        if (off instanceof SocketHarness) await off.close();
      }
    });

    it('an application that reveals unknown users is not held (its answers tell anyway)', async () => {
      const open = await make({ apps: [applicationConfig({ revealUnknownUsers: true })] });
      try {
        const res = await within(open.post(PATHS.assertionOptions, { username: username('nobody') }));
        assert.equal(res.json().errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
        assert.equal(open.timers.started.at(-1)?.state, 'cleared');
      } finally {
        if (open instanceof SocketHarness) await open.close();
      }
    });
  });
}

describe('the answer floor, local variant (inject)', () => {
  it('holds by-name options and a failed result; an ok result leaves at once', async () => {
    const rig = new LocalRig({ timers: 'manual' });
    const flow = new LocalFlow(rig, 'lou');
    const kept = await within(flow.registered());
    const options = await stepUntilAnswered(rig.h, rig.post(PATHS.assertionOptions, { username: flow.username }));
    assert.equal(options.res.status, 200, options.res.body);
    assert.ok(options.afterStart >= FLOOR);

    const signIn = flow.authenticate(kept, {}, {}, (credential) => ({
      ...credential,
      response: { ...credential.response, signature: Buffer.alloc(72, 1).toString('base64url') },
    }));
    // The options step of `authenticate` is held too: step the clock until the whole sign-in is answered.
    const failed = await stepUntilAnswered(
      rig.h,
      signIn.then(({ res }) => res),
      8 * FLOOR,
    );
    assert.equal(failed.res.json().errorMessage[0], 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
    assert.ok(failed.afterStart >= FLOOR);

    const good = flow.authenticate(kept);
    const ok = await stepUntilAnswered(
      rig.h,
      good.then(({ res }) => res),
      8 * FLOOR,
    );
    assert.equal(ok.res.status, 200, ok.res.body);
    assert.equal(ok.timer.state, 'cleared');
  });
});
