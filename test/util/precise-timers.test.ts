// PreciseTimers (src/util/precise-timers.ts): never early, in deadline order, a cleared one never fires, and
// the thread keeps a process alive only while a timer is pending, also when started ahead of the first timer;
// a thread that dies leaves its pending timers to node's, and the next timer starts another. How close to the deadline they fire is a
// figure of bench/enumeration.ts, not asserted here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PreciseTimers, TIMER_THREAD_STOPPED, type ThreadStop } from '../../src/util/precise-timers.js';

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const RUNTIME = fileURLToPath(new URL('../../src/util/runtime.js', import.meta.url));
const TIMERS = fileURLToPath(new URL('../../src/util/precise-timers.js', import.meta.url));

/** Runs `body` (async, with `systemRuntime` in scope) in a child process, bounded by a timeout. */
function runWithSystemRuntime(body: string) {
  const script = `import(${JSON.stringify(RUNTIME)}).then(async ({ systemRuntime }) => { ${body} });`;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
}

/** `promise`, or a failure after 5 s: a timer that never fires fails the test rather than hanging it. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timeout: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timeout = setTimeout(() => reject(new Error(`${what}: not within 5 s`)), 5_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timeout);
  }
}

describe('PreciseTimers', () => {
  it('the thread runs whatever flags the process was started with (it takes none of them)', () => {
    // `--input-type=module` is a flag a worker refuses: inherited, it would end the thread at start.
    const script = `const { PreciseTimers } = await import(${JSON.stringify(TIMERS)});
      const timers = new PreciseTimers();
      await timers.start(5).elapsed;
      await new Promise((ok) => setTimeout(ok, 100));
      console.log(timers.threadStarted ? 'thread' : 'fallback');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(child.stdout.trim(), 'thread', child.stderr);
  });

  it('fires no earlier than its delay, timers of several delays in deadline order', async () => {
    const timers = new PreciseTimers();
    // Started ahead, as the service starts it: spawning the thread inside the first timer's start would sit
    // between the four starts, and on a loaded machine move the later deadlines past the first one's.
    await timers.startThread();
    const fired: number[] = [];
    const started = nowMs();
    const all = [30, 10, 20, 10].map((ms, i) =>
      timers.start(ms).elapsed.then(() => {
        fired.push(i);
        assert.ok(nowMs() - started >= ms, `timer ${i} (${ms} ms) fired early`);
      }),
    );
    await Promise.all(all);
    assert.deepEqual(fired, [1, 3, 2, 0]);
  });

  it('a cleared timer never fires; clearing twice or after firing is harmless', async () => {
    const timers = new PreciseTimers();
    let clearedFired = false;
    const cleared = timers.start(5);
    void cleared.elapsed.then(() => {
      clearedFired = true;
    });
    cleared.clear();
    cleared.clear();
    const later = timers.start(15);
    await later.elapsed;
    later.clear();
    await timers.start(1).elapsed;
    assert.equal(clearedFired, false);
  });

  it('a timer cleared before anything awaits it is never queued and starts no thread', async () => {
    const timers = new PreciseTimers();
    const unawaited = timers.start(5);
    unawaited.clear();
    assert.equal(timers.queued, 0);
    assert.equal(timers.threadStarted, false);
    // Awaited after its clear: it never fires, and is not queued either.
    let fired = false;
    void unawaited.elapsed.then(() => {
      fired = true;
    });
    assert.equal(timers.queued, 0);
    const awaited = timers.start(5);
    const done = awaited.elapsed;
    assert.equal(timers.queued, 1);
    assert.equal(timers.threadStarted, true);
    await done;
    assert.equal(fired, false);
  });

  it("a thread started with a listener tells it, not the process's warnings, when it stops", async () => {
    const timers = new PreciseTimers();
    const heard: ThreadStop[] = [];
    await within(timers.startThread({ onStop: (stop) => heard.push(stop) }), 'the thread booting');
    await within(timers.terminateThread(), 'the thread ending');
    assert.equal(heard.length, 1);
    assert.equal(heard[0]!.code, TIMER_THREAD_STOPPED);
    assert.match(heard[0]!.message, /timer thread stopped \(exit code 1\)/);
  });

  it('starting a thread that already runs resolves at once, not at the boot limit', async () => {
    const timers = new PreciseTimers();
    await within(timers.startThread(), 'the thread booting');
    // Its 'online' event is past: only the thread's own boot, not the event, may be awaited again.
    await within(timers.startThread({ bootLimitMs: 60_000 }), 'the running thread');
    assert.equal(timers.threadStarted, true);
  });

  it('a thread started ahead of the first timer runs with none queued; the timer then fires no earlier than its delay', async () => {
    const timers = new PreciseTimers();
    await within(timers.startThread(), 'the thread booting');
    assert.equal(timers.threadStarted, true);
    assert.equal(timers.queued, 0);
    const started = nowMs();
    await timers.start(10).elapsed;
    assert.ok(nowMs() - started >= 10, 'fired early');
  });

  it('the system runtime prepares them: a thread started ahead, then idle, does not keep the process alive', () => {
    // A child that starts the thread and gives it no timer (node's timeout lets it boot and go idle), prints,
    // and exits by itself (bounded by the spawn timeout).
    const child = runWithSystemRuntime(`systemRuntime.prepareTimers();
      await new Promise((resolve) => setTimeout(resolve, 100)); console.log('idle');`);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'idle');
  });

  it('the system runtime uses them: a pending timer keeps the process alive, an idle thread does not', () => {
    // A child that only awaits a timer: it prints, then exits by itself (bounded by the spawn timeout).
    const child = runWithSystemRuntime(`const a = systemRuntime.startTimer(20); systemRuntime.startTimer(10).clear();
      await a.elapsed; console.log('fired');`);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'fired');
  });
});

describe('PreciseTimers when the thread dies', () => {
  it("pending timers fall back to node's: each fires, none early, a cleared one never; the next starts a thread", async () => {
    const timers = new PreciseTimers();
    const started = nowMs();
    const notEarly = (ms: number) => () => assert.ok(nowMs() - started >= ms, `the ${ms} ms timer fired early`);
    const firing = [30, 60].map((ms) => timers.start(ms).elapsed.then(notEarly(ms)));
    const fired = new Set<string>();
    const clearedBefore = timers.start(40);
    void clearedBefore.elapsed.then(() => fired.add('cleared before the thread died'));
    const clearedAfter = timers.start(50);
    void clearedAfter.elapsed.then(() => fired.add('cleared after the thread died'));
    assert.equal(timers.threadStarted, true);
    clearedBefore.clear();
    assert.equal(timers.queued, 4, 'all four pending on the thread (a cleared one stays until its deadline)');

    const warned = once(process, 'warning');
    await within(timers.terminateThread(), 'the thread ending');
    const [warning] = (await within(warned, 'the warning')) as [Error & { code?: string }];
    assert.equal(warning.code, TIMER_THREAD_STOPPED);
    assert.match(warning.message, /timer thread stopped/);
    assert.equal(timers.threadStarted, false);
    assert.equal(timers.queued, 0, 'every pending timer left the queue for the fallback');
    clearedAfter.clear();
    await within(Promise.all(firing), 'the pending timers');
    // Past the cleared timers' deadlines (50 ms), with room: neither fired.
    await sleep(Math.max(0, started + 80 - nowMs()));
    assert.deepEqual([...fired], []);

    const afterwards = nowMs();
    const next = timers.start(10).elapsed;
    assert.equal(timers.threadStarted, true, 'a timer after the death starts a new thread');
    await within(next, 'the timer on the new thread');
    assert.ok(nowMs() - afterwards >= 10, 'the timer on the new thread fired early');
  });
});
