// user.id is derived, not stored first (docs/decisions.md): HMAC-SHA-256 under the server's user-handle key of
// (Client ID, username). Stable, reveals nothing about the name, and works in the local variant too.
// The same key, under a separate derived sub-key, makes the stand-in credential of unknown users
// (fake-credential.ts).
// A user whose passkeys were imported keeps the handle its authenticators hold (docs/migration.md): the
// store keeps it, and `userHandleFor` answers it instead of the derived one.

import type { CredentialStore } from '../stores/types.js';
import { hmacSha256 } from '../util/hmac.js';

/** base64url(HMAC-SHA-256(key, clientId ‖ 0x00 ‖ username)): 32 bytes, 43 characters. */
export function deriveUserHandle(key: Buffer, clientId: string, username: string): string {
  return hmacSha256(key).update(`${clientId}\u0000${username}`, 'utf8').digest('base64url');
}

/**
 * The user handle of a standard-variant user (`user#domain`): the one an import kept for it, else the
 * derived one. One store read.
 */
export async function userHandleFor(
  credentials: Pick<CredentialStore, 'importedUserHandle'>,
  key: Buffer,
  clientId: string,
  username: string,
): Promise<string> {
  return (await credentials.importedUserHandle(clientId, username)) ?? deriveUserHandle(key, clientId, username);
}
