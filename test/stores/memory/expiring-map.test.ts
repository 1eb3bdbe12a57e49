// The expiring map under the in-process challenge store: expired entries leave from the oldest end a few
// at a time, and a full sweep happens only when entries were set out of expiry order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExpiringMap } from '../../../src/stores/memory/expiring-map.js';

const map = () => new ExpiringMap<string, number>((expiresAt) => expiresAt);

describe('ExpiringMap', () => {
  it('one lifetime: what expired before now leaves as entries are set, at most 64 per change, never a live one', () => {
    const m = map();
    for (let i = 0; i < 1000; i++) m.set(`a${i}`, 100 + i, 0);
    assert.equal(m.size, 1000);
    // At t = 600, entries expiring at 100..599 are dead: the next 8 changes free them 64 at a time.
    for (let i = 0; i < 8; i++) m.set(`b${i}`, 5000, 600);
    assert.equal(m.size, 1000 - 500 + 8);
    assert.equal(m.get('a499'), undefined);
    assert.equal(m.get('a500'), 600, 'expiring exactly now is still live');
  });

  it('several lifetimes: dead entries behind a live older one are freed by a full sweep once the map has doubled', () => {
    const m = map();
    m.set('long', 1_000_000, 0);
    for (let i = 0; i < 600; i++) m.set(`short${i}`, 10, 0);
    // Beyond 1024 entries with the order broken: a full sweep at t = 20 frees the 600 dead short ones.
    for (let i = 0; i < 500; i++) m.set(`later${i}`, 1_000, 20);
    assert.equal(m.get('short0'), undefined);
    assert.equal(m.size, 1 + 500);
    assert.equal(m.get('long'), 1_000_000);
  });

  it('sweep removes every expired entry at once; delete and clear', () => {
    const m = map();
    m.set('x', 50, 0);
    m.set('y', 10, 0);
    m.set('z', 70, 0);
    m.sweep(60);
    assert.deepEqual(
      ['x', 'y', 'z'].map((k) => m.get(k)),
      [undefined, undefined, 70],
    );
    m.delete('z');
    assert.equal(m.size, 0);
    m.set('w', 1, 0);
    m.clear();
    assert.equal(m.size, 0);
  });
});
