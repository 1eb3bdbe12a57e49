// The thread of src/util/precise-timers.ts: sleeps until the earliest deadline the event loop published,
// with Atomics.wait (its timeout is not rounded to milliseconds, unlike the event loop's timers), then wakes
// the event loop (its Atomics.waitAsync on `fired`) and waits until it has fired what was due and published
// the next deadline. The shared memory is described there; only the event loop writes the deadline.

import { workerData } from 'node:worker_threads';

const shared = workerData as SharedArrayBuffer;
const generation = new Int32Array(shared, 0, 1);
const fired = new Int32Array(shared, 4, 1);
const earliest = new Float64Array(shared, 8, 1);

// A daemon: it ends with the process (or a terminate()), which interrupts Atomics.wait.
for (;;) {
  const seen = Atomics.load(generation, 0);
  const wait = earliest[0]! - Number(process.hrtime.bigint()) / 1e6;
  if (wait > 0) {
    Atomics.wait(generation, 0, seen, wait);
    continue;
  }
  Atomics.add(fired, 0, 1);
  Atomics.notify(fired, 0);
  Atomics.wait(generation, 0, seen);
}
