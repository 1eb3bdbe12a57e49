// The relay secrets' "last used" recorder (src/applications/relay-secret-usage.ts): a request only notes the
// use in memory; a flush writes one use per secret (the latest), nothing when nothing was noted; a failed
// write keeps the notes for the next flush; the notes are bounded; `stop` writes what is left.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RelaySecretUsage } from '../../src/applications/relay-secret-usage.js';
import type { RelaySecretUse } from '../../src/stores/relay-secret-types.js';
import { captureLog } from '../support/admin-fixtures.js';

function rig(options: { failing?: () => boolean; maxPending?: number } = {}) {
  let now = 1000;
  const writes: RelaySecretUse[][] = [];
  const log = captureLog();
  const usage = new RelaySecretUsage({
    store: {
      recordUses: async (uses) => {
        if (options.failing?.()) throw new Error('database down');
        writes.push([...uses]);
      },
    },
    now: () => now,
    log,
    ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
  });
  return { usage, writes, log, tick: (ms: number) => void (now += ms) };
}

describe('relay secret usage', () => {
  it('notes in memory and writes one use per secret, the latest, at each flush', async () => {
    const { usage, writes, tick } = rig();
    usage.note('app-1', 'sha256:aa');
    tick(10);
    usage.note('app-1', 'sha256:aa');
    usage.note('app-1', 'sha256:bb');
    usage.note('app-2', 'sha256:aa');
    assert.equal(writes.length, 0, 'no write on the request path');
    assert.deepEqual(
      usage.pending('app-1'),
      new Map([
        ['sha256:aa', 1010],
        ['sha256:bb', 1010],
      ]),
    );
    await usage.flush();
    assert.deepEqual(writes, [
      [
        { clientId: 'app-1', hash: 'sha256:aa', at: 1010 },
        { clientId: 'app-1', hash: 'sha256:bb', at: 1010 },
        { clientId: 'app-2', hash: 'sha256:aa', at: 1010 },
      ],
    ]);
    assert.deepEqual(usage.pending('app-1'), new Map());
    await usage.flush();
    assert.equal(writes.length, 1, 'nothing noted: nothing written');
  });

  it('keeps the notes of a failed write for the next flush, newer notes winning', async () => {
    let down = true;
    const { usage, writes, log, tick } = rig({ failing: () => down });
    usage.note('app-1', 'sha256:aa');
    await usage.flush();
    assert.equal(log.lines[0]?.fields.event, 'relay_secret_usage_not_written');
    tick(5);
    usage.note('app-1', 'sha256:aa');
    usage.note('app-1', 'sha256:bb');
    down = false;
    await usage.stop();
    assert.deepEqual(writes, [
      [
        { clientId: 'app-1', hash: 'sha256:aa', at: 1005 },
        { clientId: 'app-1', hash: 'sha256:bb', at: 1005 },
      ],
    ]);
  });

  it('holds at most maxPending secrets between flushes', async () => {
    const { usage, writes } = rig({ maxPending: 2 });
    for (const hash of ['sha256:1', 'sha256:2', 'sha256:3']) usage.note('app-1', hash);
    usage.note('app-1', 'sha256:1');
    await usage.flush();
    assert.deepEqual(
      writes[0]!.map((u) => u.hash),
      ['sha256:1', 'sha256:2'],
    );
    usage.note('app-1', 'sha256:3');
    await usage.flush();
    assert.deepEqual(
      writes[1]!.map((u) => u.hash),
      ['sha256:3'],
    );
  });
});
