// user.id is derived, not stored first (decisions.md): HMAC-SHA-256 under the server's user-handle key of
// (Client ID, username). Stable, reveals nothing about the name, and works in the local variant too.
// The same key, under a separate derived sub-key, makes the stable fake credential id for unknown users.

import { createHmac } from 'node:crypto';

/** How many recent (Client ID, username) pairs keep their handle per key: a returning user skips the HMAC. */
const REMEMBERED_HANDLES = 4096;
const remembered = new WeakMap<Buffer, Map<string, string>>();

/** base64url(HMAC-SHA-256(key, clientId ‖ 0x00 ‖ username)): 32 bytes, 43 characters. */
export function deriveUserHandle(key: Buffer, clientId: string, username: string): string {
  const input = `${clientId}\u0000${username}`;
  let handles = remembered.get(key);
  if (handles === undefined) remembered.set(key, (handles = new Map()));
  let handle = handles.get(input);
  if (handle === undefined) {
    handle = createHmac('sha256', key).update(input, 'utf8').digest('base64url');
    // Bounded: the oldest remembered pair makes room (a Map iterates in insertion order).
    if (handles.size >= REMEMBERED_HANDLES) handles.delete(handles.keys().next().value!);
    handles.set(input, handle);
  }
  return handle;
}

/**
 * The one fake credential id answered for a user without credentials, so that assertion options do not
 * tell who is registered. A separate sub-key keeps it unrelated to any user handle.
 */
export function deriveFakeCredentialId(key: Buffer, clientId: string, username: string): string {
  const subKey = createHmac('sha256', key).update('passkey-server fake credential id v1', 'utf8').digest();
  return createHmac('sha256', subKey).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');
}
