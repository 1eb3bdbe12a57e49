// Timers that fire at their deadline, to within tens of µs, whatever the event loop did after they started:
// the answer floor's (src/http/answer-floor.ts, docs/decisions.md "Options responses"). node's setTimeout
// cannot: libuv counts a timer from its loop's cached whole-millisecond clock and sleeps the timeout from
// when the loop next waits, so work done after a timer started delays its firing (measured: of 40 µs more
// work, 35 µs came through a 5 ms setTimeout in process, 24 µs over HTTP; with these timers, none). One
// worker thread (precise-timers-thread.ts) sleeps until the earliest deadline and wakes the event loop by a
// message; the loop then fires every timer that is due. The thread starts with the first timer, and keeps
// the process alive only while a timer is pending.

import { Worker } from 'node:worker_threads';
import type { Timer } from './runtime.js';

const THREAD = new URL('./precise-timers-thread.js', import.meta.url);

/** Milliseconds on process.hrtime's clock, which the thread reads too. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

interface Pending {
  readonly due: number;
  readonly resolve: () => void;
  cleared: boolean;
}

export class PreciseTimers {
  readonly #shared = new SharedArrayBuffer(16);
  readonly #generation = new Int32Array(this.#shared, 0, 1);
  readonly #earliest = new Float64Array(this.#shared, 8, 1);
  /** In deadline order; a cleared timer stays until its deadline (the thread may wake for it, harmlessly). */
  #pending: Pending[] = [];
  /** Pending and not cleared: while any, the thread keeps the process alive. */
  #live = 0;
  #worker: Worker | undefined;

  constructor() {
    this.#earliest[0] = Number.POSITIVE_INFINITY;
  }

  start = (ms: number): Timer => {
    let entry: Pending | undefined;
    const elapsed = new Promise<void>((resolve) => {
      entry = { due: monotonicMs() + ms, resolve, cleared: false };
    });
    const timer = entry!;
    // Deadlines of one delay come in order: the place is found from the back, almost always at the end.
    let at = this.#pending.length;
    while (at > 0 && this.#pending[at - 1]!.due > timer.due) at--;
    this.#pending.splice(at, 0, timer);
    if (this.#live++ === 0) this.#thread().ref();
    if (at === 0) this.#publish();
    return {
      elapsed,
      clear: () => {
        if (timer.cleared) return;
        timer.cleared = true;
        this.#release();
      },
    };
  };

  /** Fires what is due (the thread said the earliest deadline passed), then publishes the next one. */
  #fire(): void {
    const now = monotonicMs();
    let due = 0;
    while (due < this.#pending.length && this.#pending[due]!.due <= now) due++;
    for (const timer of this.#pending.splice(0, due)) {
      if (timer.cleared) continue;
      timer.cleared = true;
      timer.resolve();
      this.#release();
    }
    this.#publish();
  }

  #release(): void {
    if (--this.#live === 0) this.#worker?.unref();
  }

  /** The earliest deadline to the thread; the generation bump wakes it (always: it waits for one after telling). */
  #publish(): void {
    this.#earliest[0] = this.#pending[0]?.due ?? Number.POSITIVE_INFINITY;
    Atomics.add(this.#generation, 0, 1);
    Atomics.notify(this.#generation, 0);
  }

  #thread(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(THREAD, {
      workerData: this.#shared,
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    this.#worker = worker;
    worker.on('message', () => this.#fire());
    worker.on('error', () => {});
    // A thread that stopped: its pending timers fall back to node's (late by the work, never early), and
    // the next timer starts another thread.
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const timer of this.#pending.splice(0)) {
        if (timer.cleared) continue;
        setTimeout(timer.resolve, Math.max(0, Math.ceil(timer.due - monotonicMs())));
        timer.cleared = true;
        this.#live--;
      }
      this.#publish();
    });
    return worker;
  }
}
