// The user handle is HMAC-SHA-256(key, clientId ‖ 0 ‖ username); remembering recent ones must never
// change an answer: not across keys, not past the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';

const direct = (key: Buffer, clientId: string, username: string) =>
  createHmac('sha256', key).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');

test('a remembered handle equals the HMAC, per key, also past the bound of remembered pairs', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 5000; i += 7) {
      const name = `user${i}#example.com`;
      assert.equal(deriveUserHandle(k1, 'client', name), direct(k1, 'client', name));
      assert.equal(deriveUserHandle(k2, 'client', name), direct(k2, 'client', name));
    }
  }
  assert.notEqual(deriveUserHandle(k1, 'client', 'a#b'), deriveUserHandle(k2, 'client', 'a#b'));
  // The separator keeps (Client ID, username) pairs apart even when their concatenations would meet.
  assert.notEqual(deriveUserHandle(k1, 'ab', 'c'), deriveUserHandle(k1, 'a', 'bc'));
});
