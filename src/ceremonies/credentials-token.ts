// The credentials token (docs/api.md "A user's own passkeys"): a short-lived proof, issued with every ok
// sign-in of the standard variant (and the registration of a user's first credential), that this user of
// this application signed in moments ago. POST /api/credentials/list and /delete require it, so that a relay can let a signed-in user manage
// their own passkeys and nobody else's: the Client ID is no secret, and credential ids are offered to
// anyone who asks for a user's assertion options.
//
// `v1.<expiry, base-36 ms>.<HMAC-SHA-256, base64url>` over (Client ID, user handle, expiry), under a key
// derived from the user-handle key with its own label. Nothing is stored: checking it is one HMAC.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '../util/hmac.js';
import { FidoError } from '../errors/catalogue.js';

/** How long a token lets its holder list and delete: a step-up window, not a session. */
export const CREDENTIALS_TOKEN_MS = 10 * 60 * 1000;

const VERSION = 'v1';
const LABEL = 'passkey-server credentials token v1';
const derivedKeys = new WeakMap<Buffer, Buffer>();

function tokenKey(userHandleKey: Buffer): Buffer {
  let key = derivedKeys.get(userHandleKey);
  if (key === undefined) {
    key = createHmac('sha256', userHandleKey).update(LABEL, 'utf8').digest();
    derivedKeys.set(userHandleKey, key);
  }
  return key;
}

function mac(userHandleKey: Buffer, clientId: string, userHandle: string, expiry: string): Buffer {
  return hmacSha256(tokenKey(userHandleKey))
    .update(`${VERSION}\u0000${clientId}\u0000${userHandle}\u0000${expiry}`, 'utf8')
    .digest();
}

/** A token for this user of this application, valid for CREDENTIALS_TOKEN_MS from `now` (epoch ms). */
export function issueCredentialsToken(
  userHandleKey: Buffer,
  clientId: string,
  userHandle: string,
  now: number,
): string {
  const expiry = (now + CREDENTIALS_TOKEN_MS).toString(36);
  return `${VERSION}.${expiry}.${mac(userHandleKey, clientId, userHandle, expiry).toString('base64url')}`;
}

/**
 * Throws CREDENTIALS_TOKEN_INVALID unless `token` was issued by this service for this user of this
 * application (another user's, another application's, altered or made up: one name, so a refusal tells
 * nothing about whom a token was for), then CREDENTIALS_TOKEN_EXPIRED when its time is over.
 */
export function checkCredentialsToken(
  userHandleKey: Buffer,
  clientId: string,
  userHandle: string,
  token: string,
  now: number,
): void {
  const parts = token.split('.');
  const [version, expiry, sent] = parts;
  if (
    parts.length !== 3 ||
    version !== VERSION ||
    expiry === undefined ||
    sent === undefined ||
    !/^[0-9a-z]{1,12}$/.test(expiry)
  ) {
    throw new FidoError('CREDENTIALS_TOKEN_INVALID');
  }
  const expected = mac(userHandleKey, clientId, userHandle, expiry);
  const given = Buffer.from(sent, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || given.toString('base64url') !== sent) {
    throw new FidoError('CREDENTIALS_TOKEN_INVALID');
  }
  if (now >= Number.parseInt(expiry, 36)) throw new FidoError('CREDENTIALS_TOKEN_EXPIRED');
}
