// The answer-time floor (`answerFloorMs`, docs/decisions.md "Options responses"): an answer that could tell
// a registered user from an unknown one leaves no earlier than a fixed time after its request arrived, so
// that what the work cost, which differs between the two by a few µs, is not seen in when it is answered.
//
// The timer starts once the route is known (at arrival, before the body is read) and fires at arrival +
// floor, whatever the work then costs: a delay computed at the end ("floor minus elapsed") would pass the
// work's duration on through the timers' whole-millisecond rounding. A call whose answer cannot tell users
// apart frees its timer and is answered at once.
import type { Runtime, Timer } from '../util/runtime.js';
import type { Reply } from './envelope.js';

/** Which answers of a route wait for the floor: all of them, or only the failed ones. */
export type FloorPolicy = 'every' | 'failed';

/** One request's floor: inert until started, then held until the answer is ready. */
export class AnswerFloor {
  #timer: Timer | undefined;
  #policy: FloorPolicy = 'every';

  constructor(
    private readonly runtime: Pick<Runtime, 'startTimer'>,
    private readonly ms: number,
  ) {}

  /** The route is known and its answers are floored by `policy`: the floor runs from now (0 ms: off). */
  start(policy: FloorPolicy): void {
    if (this.ms <= 0) return;
    this.#policy = policy;
    this.#timer = this.runtime.startTimer(this.ms);
  }

  /** This call's answer is the same for every user (or its application tells anyway): it need not wait. */
  exempt(): void {
    this.#timer?.clear();
    this.#timer = undefined;
  }

  /** When the answer may leave: a promise of the floor's end, or undefined for at once (the timer freed). */
  release(reply: Reply): Promise<void> | undefined {
    const timer = this.#timer;
    if (timer === undefined) return undefined;
    this.#timer = undefined;
    if (this.#policy === 'every' || reply.status !== 200) return timer.elapsed;
    timer.clear();
    return undefined;
  }
}
