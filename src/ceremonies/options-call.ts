// What both options calls do before their own work: read the username (which chooses the variant), check
// the origin header (standard), find the user handle (user-handle.ts) and draw the challenge. Plus the credential
// descriptor both answers list (excludeCredentials, allowCredentials).

import type { Hint } from '../service-config.js';
import type { Descriptor } from '../schemas/answers.js';
import type { Application } from './deps.js';
import type { CredentialRecord } from '../stores/types.js';
import { encodeBase64url } from '../util/base64url.js';
import type { CeremonyContext } from './context.js';
import { canonicalTransports } from './fake-credential.js';
import { requireStandardOrigin, standardOrigins } from './origins.js';
import { deriveUserHandle, userHandleFor } from './user-handle.js';
import { parseUsername, type ParsedUsername } from './username.js';

/** 32 random bytes: 256 bits, above WebAuthn's 16-byte minimum (docs/decisions.md "Ceremonies"). */
export const CHALLENGE_BYTES = 32;

export interface OptionsCall {
  readonly name: ParsedUsername;
  /** The checked origin header (standard); null for local, which has none. */
  readonly origin: string | null;
  /** The user.id (an imported user's kept handle, else the derived one); empty for a sign-in without a user name. */
  readonly userHandle: string;
  readonly challenge: string;
}

/** `allowEmptyUser`: the call may start a sign-in without a user name (`#<domain>`, `#localhost`). */
export async function beginOptionsCall(
  ctx: CeremonyContext,
  username: string,
  allowEmptyUser = false,
): Promise<OptionsCall> {
  const { application: app, deps } = ctx;
  ctx.noteSubject({ username });
  const name = parseUsername(username, app, deps.config.local.enabled, allowEmptyUser);
  ctx.noteVariant(name.variant);
  const origin = name.variant === 'standard' ? requireStandardOrigin(ctx.originHeader, standardOrigins(app)) : null;
  const challenge = encodeBase64url(deps.runtime.randomBytes(CHALLENGE_BYTES));
  const key = deps.secrets.userHandleKey;
  // The local variant stores nothing (no import reaches it): its handle is always the derived one.
  const userHandle =
    name.user === ''
      ? ''
      : name.variant === 'standard'
        ? await userHandleFor(deps.credentials, key, ctx.clientId, name.username)
        : deriveUserHandle(key, ctx.clientId, name.username);
  return { name, origin, userHandle, challenge };
}

export type { Descriptor };

/**
 * The `hints` member of an options answer: the request's (even an empty list: the caller chose none), else
 * the application's defaults; absent when neither has any, so the specification's answers stay as they were.
 */
export function hintsMember(requested: readonly Hint[] | undefined, app: Application): { hints?: Hint[] } {
  const hints = requested ?? app.hints ?? [];
  return hints.length > 0 ? { hints: [...hints] } : {};
}

/**
 * A credential as options list it, with the transports it registered with: a stored one (standard) or one
 * the local variant remembers (its id and transports only).
 */
export function descriptorOf(credential: Pick<CredentialRecord, 'credentialId' | 'transports'>): Descriptor {
  // One canonical order (lexicographic) for every credential, stored or stand-in: an order would tell them apart.
  return { type: 'public-key', id: credential.credentialId, transports: canonicalTransports(credential.transports) };
}
