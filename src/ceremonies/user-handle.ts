// user.id is derived, not stored first (docs/decisions.md): HMAC-SHA-256 under the server's user-handle key of
// (Client ID, username). Stable, reveals nothing about the name, and works in the local variant too.
// The same key, under a separate derived sub-key, makes the stand-in credential of unknown users
// (fake-credential.ts).

import { createHmac } from 'node:crypto';
import { remembered } from '../util/remembered.js';

/** How many recent (Client ID, username) pairs keep their handle per key: a returning user skips the HMAC. */
const REMEMBERED_HANDLES = 4096;
const rememberedHandles = new WeakMap<Buffer, Map<string, string>>();

/** base64url(HMAC-SHA-256(key, clientId ‖ 0x00 ‖ username)): 32 bytes, 43 characters. */
export function deriveUserHandle(key: Buffer, clientId: string, username: string): string {
  let handles = rememberedHandles.get(key);
  if (handles === undefined) {
    handles = new Map();
    rememberedHandles.set(key, handles);
  }
  const input = `${clientId}\u0000${username}`;
  return remembered(handles, input, REMEMBERED_HANDLES, () => createHmac('sha256', key).update(input, 'utf8').digest('base64url'));
}
