// The audit event builders on the request path: the time text cache and the batched random id parts must
// give exactly what the plain versions give.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { auditEvent, createAuditIdSource, createIsoTime } from '../../src/audit/events.js';
import { systemRuntime, type Runtime } from '../../src/util/runtime.js';

describe('createIsoTime', () => {
  it('equals Date#toISOString within a second, across seconds and days, before 1970 and past year 9999', () => {
    const iso = createIsoTime();
    const base = Date.UTC(2026, 10, 22, 23, 59, 58);
    const times = [
      base,
      base + 1,
      base + 9,
      base + 10,
      base + 99,
      base + 100,
      base + 999,
      base + 1000,
      base + 1999,
      base + 2000,
      base - 1,
      0,
      -1,
      -999,
      -1000,
      -1001,
      Date.UTC(10_000, 0, 1) + 5,
      Date.UTC(-1, 0, 1) + 123,
      1.5,
      8.64e15,
    ];
    for (const ms of times) assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
  });

  it('throws for an invalid time as Date#toISOString does', () => {
    const iso = createIsoTime();
    assert.throws(() => iso(Number.NaN), RangeError);
    assert.throws(() => iso(8.64e15 + 1), RangeError);
  });
});

describe('createAuditIdSource', () => {
  it('draws 4 random bytes per id, 8 hex digits in every id', () => {
    const sizes: number[] = [];
    let now = Date.UTC(2026, 10, 22);
    const runtime: Runtime = {
      now: () => now,
      randomBytes: (n) => {
        sizes.push(n);
        return randomBytes(n);
      },
      startTimer: systemRuntime.startTimer,
    };
    const next = createAuditIdSource(runtime);
    const ids = Array.from({ length: 200 }, (_, i) => {
      if (i % 7 === 0) now += 1;
      return next();
    });
    assert.equal(new Set(ids).size, 200);
    assert.deepEqual([...ids].sort(), ids);
    for (const id of ids) assert.match(id, /^[0-9a-z]{11}-[0-9a-z]{4}-[0-9a-f]{8}$/);
    assert.deepEqual(
      sizes,
      Array.from({ length: 200 }, () => 4),
    );
    assert.equal(new Set(ids.map((id) => id.slice(-8))).size, 200, 'random parts differ');
  });

  it('keeps the millisecond part and sequence as before, also when the clock goes back', () => {
    let now = 1_800_000_000_000;
    const next = createAuditIdSource({ now: () => now, randomBytes: (n) => Buffer.alloc(n, 0xab) });
    const first = next();
    const second = next();
    now -= 5;
    const third = next();
    now += 10;
    const fourth = next();
    const ms = (1_800_000_000_000).toString(36).padStart(11, '0');
    assert.deepEqual([first, second, third], [`${ms}-0000-abababab`, `${ms}-0001-abababab`, `${ms}-0002-abababab`]);
    assert.equal(fourth, `${(1_800_000_000_005).toString(36).padStart(11, '0')}-0000-abababab`);
  });
});

describe('auditEvent', () => {
  it('fills the optional fields with null and has details only when given', () => {
    const at = Date.UTC(2026, 10, 22, 6, 0, 0, 42);
    const plain = auditEvent('id-1', at, { actor: 'system', action: 'x', result: 'ok' });
    assert.deepEqual(plain, {
      id: 'id-1',
      time: '2026-11-22T06:00:00.042Z',
      actor: 'system',
      action: 'x',
      clientId: null,
      subject: null,
      target: null,
      result: 'ok',
      errorName: null,
      requestId: null,
      remoteAddress: null,
    });
    assert.equal('details' in plain, false);
    const detailed = auditEvent('id-2', at, {
      actor: 'system',
      action: 'x',
      result: 'failed',
      errorName: 'E',
      details: { n: 1 },
    });
    assert.deepEqual(detailed.details, { n: 1 });
    assert.deepEqual(Object.keys(detailed).at(-1), 'details');
  });
});
