// Timers that fire at their deadline, to within tens of µs, whatever the event loop did after they started:
// the answer floor's (src/http/answer-floor.ts, docs/decisions.md "Options responses"). node's setTimeout
// cannot: libuv counts a timer from its loop's cached whole-millisecond clock and sleeps the timeout from
// when the loop next waits, so work done after a timer started delays its firing (measured: of 40 µs more
// work, 35 µs came through a 5 ms setTimeout in process; with these timers, none). One worker thread
// (precise-timers-thread.ts) sleeps until the earliest deadline (Atomics.wait, not rounded to milliseconds)
// and then wakes the event loop, which waits on the same shared memory with Atomics.waitAsync (cheaper than
// a message: paired, about 4 % more CPU a sign-in than setTimeout against 10 % with postMessage) and fires
// every timer that is due. A timer joins the queue only when something awaits it: the floor of a call that
// needs none (a successful result) is cleared unawaited and costs a clock read (paired: 0.96 × the CPU of a
// sign-in against queueing every one). Deadlines are rounded up to the next whole millisecond of the clock, a grid set
// by the start time alone, so that under load the timers of one millisecond share one wake. The thread
// starts with the first timer, or ahead of it (startThread, awaited before the service listens: its boot
// takes tens of ms, which the first answer would otherwise wait), and keeps the process alive only while a
// timer is pending. A thread that stops is reported (the service's log) and its timers fall back to node's.
//
// Shared memory: [0] (Int32) a generation the event loop bumps whenever it publishes; [4] (Int32) bumped by
// the thread when the earliest deadline passed; [8] (Float64) the earliest deadline, ms on process.hrtime's
// clock, or Infinity.

import { Worker } from 'node:worker_threads';

const THREAD = new URL('./precise-timers-thread.js', import.meta.url);

/** Milliseconds on process.hrtime's clock, which the thread reads too. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The code a stopped thread is reported with: the service log's `code`, or a process warning's. */
export const TIMER_THREAD_STOPPED = 'PASSKEY_TIMER_THREAD_STOPPED';

/** What the thread's stop is told as: `code` is TIMER_THREAD_STOPPED. */
export interface ThreadStop {
  readonly code: string;
  readonly message: string;
}

/** The grid deadlines are rounded up to (ms). */
const GRAIN_MS = 1;

/** Atomics.waitAsync (ES2024; Node.js 16 and later), which the project's TypeScript library does not declare. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number): { async: boolean; value: Promise<unknown> | string };
  }
).waitAsync;

/** A timer (Runtime.startTimer's). */
export interface Timer {
  /** Resolves when the timer fires; never, once cleared. */
  readonly elapsed: Promise<void>;
  /** Stops the timer (nothing is kept waiting for it); harmless after it fired. */
  clear(): void;
}

interface Pending {
  readonly due: number;
  /** Set when something awaits the timer, which then joins the queue. */
  resolve?: () => void;
  /** Fired or cleared: nothing more happens to it. */
  cleared: boolean;
  /** Node's timer it moved to when the thread stopped; clear() cancels it. */
  fallback?: ReturnType<typeof setTimeout>;
}

/**
 * Fires `timer` on node's timers (its thread stopped): late by the work, never early. Node's timer counts
 * from the loop's cached clock, which may lag the deadline's, so one that comes early is set again.
 */
function fallBack(timer: Pending): void {
  const wait = timer.due - monotonicMs();
  if (wait > 0) {
    timer.fallback = setTimeout(() => fallBack(timer), Math.ceil(wait));
    return;
  }
  timer.cleared = true;
  timer.resolve!();
}

export class PreciseTimers {
  readonly #shared = new SharedArrayBuffer(16);
  readonly #generation = new Int32Array(this.#shared, 0, 1);
  readonly #fired = new Int32Array(this.#shared, 4, 1);
  readonly #earliest = new Float64Array(this.#shared, 8, 1);
  /** An Atomics.waitAsync on `#fired` is pending. */
  #listening = false;
  /** Awaited timers (each with its `resolve`), in deadline order; a cleared timer stays until its deadline (the thread may wake for it, harmlessly). */
  #pending: Pending[] = [];
  /** Pending and not cleared: while any, the thread keeps the process alive. */
  #live = 0;
  #worker: Worker | undefined;
  /** Settles once the current thread runs or stopped: what startThread awaits, however often it is called. */
  #booted: Promise<void> = Promise.resolve();
  /** Who hears that the thread stopped (startThread's onStop); a process warning when nobody does. */
  #onStop: (stop: ThreadStop) => void = (stop) => process.emitWarning(stop.message, { code: stop.code });

  constructor() {
    this.#earliest[0] = Number.POSITIVE_INFINITY;
  }

  /** Timers queued (awaited, not yet fired); for tests. */
  get queued(): number {
    return this.#pending.length;
  }

  /** Whether the thread runs; for tests. */
  get threadStarted(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * Starts the thread before the first timer, so that no timer waits for its boot, and resolves once it
   * runs (or stopped, or after `bootLimitMs`: a slow boot only makes the first timers late). Idle, it stays
   * unref'd: a thread started ahead never keeps the process alive by itself. `onStop` hears of a thread
   * that stops from now on (the service's log); without it, a process warning says so.
   */
  startThread(
    options: { readonly bootLimitMs?: number; readonly onStop?: (stop: ThreadStop) => void } = {},
  ): Promise<void> {
    const { bootLimitMs = 2000, onStop } = options;
    if (onStop !== undefined) this.#onStop = onStop;
    const worker = this.#thread();
    if (this.#live === 0) worker.unref();
    const booted = this.#booted;
    return new Promise<void>((resolve) => {
      // Ref'd, unlike the idle thread: it keeps the process waiting for the boot it was asked to await.
      const limit = setTimeout(resolve, bootLimitMs);
      void booted.then(() => {
        clearTimeout(limit);
        resolve();
      });
    });
  }

  /**
   * Ends the thread as a crash would, for the tests of the fallback: resolves once its 'exit' moved the
   * pending timers to node's.
   */
  async terminateThread(): Promise<void> {
    await this.#worker?.terminate();
  }

  start = (ms: number): Timer => {
    // The deadline is fixed now; the timer joins the queue (and may wake the thread) only when something
    // waits for it. A timer cleared unawaited (an answer that needs no floor) costs a clock read.
    const timer: Pending = { due: Math.ceil((monotonicMs() + ms) / GRAIN_MS) * GRAIN_MS, cleared: false };
    const enqueue = (): void => this.#queue(timer);
    let elapsed: Promise<void> | undefined;
    return {
      get elapsed(): Promise<void> {
        elapsed ??= new Promise<void>((resolve) => {
          if (timer.cleared) return;
          timer.resolve = resolve;
          enqueue();
        });
        return elapsed;
      },
      clear: () => {
        if (timer.cleared) return;
        timer.cleared = true;
        // Moved to node's timers, it no longer counts for the thread.
        if (timer.fallback !== undefined) clearTimeout(timer.fallback);
        else if (timer.resolve !== undefined) this.#release();
      },
    };
  };

  #queue(timer: Pending): void {
    // Deadlines of one delay come in order: the place is found from the back, almost always at the end.
    let at = this.#pending.length;
    while (at > 0 && this.#pending[at - 1]!.due > timer.due) at--;
    this.#pending.splice(at, 0, timer);
    if (this.#live++ === 0) this.#thread().ref();
    this.#listen();
    if (at === 0) this.#publish();
  }

  /** Waits (without blocking) for the thread to say a deadline passed. */
  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    const waiting = waitAsync(this.#fired, 0, Atomics.load(this.#fired, 0));
    const fire = () => {
      this.#listening = false;
      this.#fire();
    };
    if (waiting.async) void (waiting.value as Promise<unknown>).then(fire);
    else queueMicrotask(fire);
  }

  /** Fires what is due (the thread said the earliest deadline passed), then publishes the next one. */
  #fire(): void {
    const now = monotonicMs();
    let due = 0;
    while (due < this.#pending.length && this.#pending[due]!.due <= now) due++;
    for (const timer of this.#pending.splice(0, due)) {
      if (timer.cleared) continue;
      timer.cleared = true;
      timer.resolve!();
      this.#release();
    }
    if (this.#pending.length > 0) this.#listen();
    this.#publish();
  }

  #release(): void {
    if (--this.#live === 0) this.#worker?.unref();
  }

  /** The earliest deadline to the thread; the generation bump wakes it (always: it waits for one after firing). */
  #publish(): void {
    this.#earliest[0] = this.#pending[0]?.due ?? Number.POSITIVE_INFINITY;
    Atomics.add(this.#generation, 0, 1);
    Atomics.notify(this.#generation, 0);
  }

  #thread(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(THREAD, {
      workerData: this.#shared,
      // None of the process's flags: the thread needs none, and some a worker refuses (`--input-type`), which
      // would end it at once and leave every timer on the fallback below.
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    this.#worker = worker;
    this.#booted = new Promise<void>((resolve) => {
      worker.once('online', () => resolve());
      worker.once('exit', () => resolve());
    });
    // An error ends the thread: 'exit' follows, handles it and says why.
    let failure = '';
    worker.on('error', (error) => {
      failure = `: ${error.message}`;
    });
    // A thread that stopped: its pending timers fall back to node's (late by the work, never early), and
    // the next timer starts another thread. The operator hears of it: meanwhile the answer floor's timing
    // follows the work again.
    worker.on('exit', (code) => {
      this.#onStop({
        code: TIMER_THREAD_STOPPED,
        message: `the answer floor's timer thread stopped (exit code ${code}${failure}); its timers run on setTimeout until the next one starts a new thread`,
      });
      if (this.#worker === worker) this.#worker = undefined;
      for (const timer of this.#pending.splice(0)) {
        if (timer.cleared) continue;
        this.#live--;
        fallBack(timer);
      }
      this.#publish();
    });
    return worker;
  }
}
