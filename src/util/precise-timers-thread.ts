// The thread of src/util/precise-timers.ts: sleeps until the earliest deadline the event loop published,
// with Atomics.wait (its timeout is not rounded to milliseconds, unlike the event loop's timers), then tells
// the event loop and waits until it has fired what was due and published the next deadline. Shared memory:
// [0] (Int32) a generation the event loop bumps at every change, [8] (Float64) the earliest deadline in ms
// of process.hrtime's clock, or Infinity. Only the event loop writes it.

import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort!;
const shared = workerData as SharedArrayBuffer;
const generation = new Int32Array(shared, 0, 1);
const earliest = new Float64Array(shared, 8, 1);

// A daemon: it ends with the process (or a terminate()), which interrupts Atomics.wait.
for (;;) {
  const seen = Atomics.load(generation, 0);
  const wait = earliest[0]! - Number(process.hrtime.bigint()) / 1e6;
  if (wait > 0) {
    Atomics.wait(generation, 0, seen, wait);
    continue;
  }
  port.postMessage(null);
  Atomics.wait(generation, 0, seen);
}
