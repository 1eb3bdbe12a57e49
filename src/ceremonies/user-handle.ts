// user.id is derived, not stored first (docs/decisions.md): HMAC-SHA-256 under the server's user-handle key of
// (Client ID, username). Stable, reveals nothing about the name, and works in the local variant too.
// The same key, under a separate derived sub-key, makes the stand-in credential of unknown users
// (fake-credential.ts).

import { hmacSha256 } from '../util/hmac.js';

/** base64url(HMAC-SHA-256(key, clientId ‖ 0x00 ‖ username)): 32 bytes, 43 characters. */
export function deriveUserHandle(key: Buffer, clientId: string, username: string): string {
  return hmacSha256(key).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');
}
