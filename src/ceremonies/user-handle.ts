// user.id is derived, not stored first (decisions.md): HMAC-SHA-256 under the server's user-handle key of
// (Client ID, username). Stable, reveals nothing about the name, and works in the local variant too.
// The same key, under a separate derived sub-key, makes the stable fake credential id for unknown users.

import { createHmac } from 'node:crypto';

/** base64url(HMAC-SHA-256(key, clientId ‖ 0x00 ‖ username)): 32 bytes, 43 characters. */
export function deriveUserHandle(key: Buffer, clientId: string, username: string): string {
  return createHmac('sha256', key).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');
}

/**
 * The one fake credential id answered for a user without credentials, so that assertion options do not
 * tell who is registered. A separate sub-key keeps it unrelated to any user handle.
 */
export function deriveFakeCredentialId(key: Buffer, clientId: string, username: string): string {
  const subKey = createHmac('sha256', key).update('passkey-server fake credential id v1', 'utf8').digest();
  return createHmac('sha256', subKey).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');
}
