import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemRuntime } from '../../src/util/runtime.js';

test('the system runtime draws the asked size, not all zeros, never the same twice', () => {
  const bytes = systemRuntime.randomBytes(32);
  assert.equal(bytes.length, 32);
  assert.ok(bytes.some((byte) => byte !== 0));
  assert.notEqual(systemRuntime.randomBytes(32).toString('hex'), bytes.toString('hex'));
  assert.equal(systemRuntime.randomBytes(0).length, 0);
});
