// AnswerFloor (src/http/answer-floor.ts) on its own: when its timer starts, which replies wait for it and
// that every other ending frees it. The app's use of it: test/http/app/answer-floor.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerFloor } from '../../src/http/answer-floor.js';
import { failed, ok } from '../../src/http/envelope.js';
import { FakeClock, FakeTimers } from '../support/harness.js';

function floorOf(ms: number) {
  const clock = new FakeClock();
  const timers = new FakeTimers(clock, 'manual');
  return { floor: new AnswerFloor({ startTimer: timers.start }, ms), timers, clock };
}

describe('AnswerFloor', () => {
  it('starts its timer when started, not when made, for the configured milliseconds', () => {
    const { floor, timers, clock } = floorOf(5);
    clock.advance(3);
    assert.equal(timers.started.length, 0);
    floor.start('every');
    assert.deepEqual(timers.started, [{ startedAt: clock.now(), ms: 5, state: 'pending' }]);
  });

  it("'every': any reply waits for the timer", async () => {
    for (const reply of [ok({}), failed('CREDENTIAL_ID_NOT_FOUND')]) {
      const { floor, timers } = floorOf(5);
      floor.start('every');
      const waiting = floor.release(reply);
      assert.ok(waiting, 'the reply does not wait');
      timers.advance(5);
      await waiting;
      assert.equal(timers.started[0]?.state, 'fired');
    }
  });

  it("'failed': a failed reply waits; an ok one is released at once and frees the timer", () => {
    const held = floorOf(5);
    held.floor.start('failed');
    assert.ok(held.floor.release(failed('ASSERTION_SIGNATURE_VERIFICATION_FAIL')));
    const freed = floorOf(5);
    freed.floor.start('failed');
    assert.equal(freed.floor.release(ok({})), undefined);
    assert.equal(freed.timers.started[0]?.state, 'cleared');
  });

  it('exempt frees the timer; never started or 0 ms: nothing waits, no timer', () => {
    const exempt = floorOf(5);
    exempt.floor.start('every');
    exempt.floor.exempt();
    assert.equal(exempt.timers.started[0]?.state, 'cleared');
    assert.equal(exempt.floor.release(failed('CREDENTIAL_ID_NOT_FOUND')), undefined);

    const unstarted = floorOf(5);
    assert.equal(unstarted.floor.release(failed('CREDENTIAL_ID_NOT_FOUND')), undefined);
    const off = floorOf(0);
    off.floor.start('every');
    assert.equal(off.floor.release(failed('CREDENTIAL_ID_NOT_FOUND')), undefined);
    assert.deepEqual(off.timers.started, []);
  });
});
