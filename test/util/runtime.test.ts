import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pooledRandomBytes, systemRuntime } from '../../src/util/runtime.js';

test('pooled randomness answers the asked size, never the same bytes twice, across pool replacements', () => {
  const draw = pooledRandomBytes(256);
  const seen = new Set<string>();
  const kept: [Buffer, string][] = [];
  for (let i = 0; i < 100; i++) {
    const bytes = draw(32);
    assert.equal(bytes.length, 32);
    const hex = bytes.toString('hex');
    assert.ok(!seen.has(hex), 'a repeated draw');
    seen.add(hex);
    kept.push([bytes, hex]);
  }
  // 100 draws of 32 bytes used up many pools of 256: what was handed out earlier is unchanged.
  for (const [bytes, hex] of kept) assert.equal(bytes.toString('hex'), hex);
});

test('pooled randomness serves sizes above a quarter pool from their own draw, and size 0', () => {
  const draw = pooledRandomBytes(256);
  assert.equal(draw(100).length, 100);
  assert.equal(draw(0).length, 0);
  const a = draw(64);
  const b = draw(64);
  assert.notEqual(a.toString('hex'), b.toString('hex'));
});

test('the system runtime draws from one pool: small draws differ and share one underlying buffer', () => {
  const bytes = systemRuntime.randomBytes(32);
  const next = systemRuntime.randomBytes(4);
  const again = systemRuntime.randomBytes(4);
  assert.equal(bytes.length, 32);
  assert.ok(bytes.some((byte) => byte !== 0));
  assert.notEqual(next.toString('hex'), again.toString('hex'));
  // At most one of the three draws started a new 4 KiB pool, so two neighbours share one.
  assert.ok(bytes.buffer === next.buffer || next.buffer === again.buffer);
  assert.equal(systemRuntime.randomBytes(0).length, 0);
});
