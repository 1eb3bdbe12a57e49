// What both options calls do before their own work: read the username (which chooses the variant), check
// the origin header (standard), derive the user handle and draw the challenge. Plus the credential
// descriptor both answers list (excludeCredentials, allowCredentials).

import type { Hint } from '../config.js';
import type { Descriptor } from '../schemas/answers.js';
import type { Application } from './deps.js';
import type { CredentialRecord } from '../stores/types.js';
import { encodeBase64url } from '../util/base64url.js';
import type { CeremonyContext } from './context.js';
import { canonicalTransports } from './fake-credential.js';
import { requireStandardOrigin, standardOrigins } from './origins.js';
import { deriveUserHandle } from './user-handle.js';
import { parseUsername, type ParsedUsername } from './username.js';

/** 32 random bytes: 256 bits, above WebAuthn's 16-byte minimum (docs/decisions.md "Ceremonies"). */
export const CHALLENGE_BYTES = 32;

export interface OptionsCall {
  readonly name: ParsedUsername;
  /** The checked origin header (standard); null for local, which has none. */
  readonly origin: string | null;
  /** The derived user.id; empty for a sign-in without a user name (no user yet). */
  readonly userHandle: string;
  readonly challenge: string;
}

/** `allowEmptyUser`: the call may start a sign-in without a user name (`#<domain>`, `#localhost`). */
export function beginOptionsCall(ctx: CeremonyContext, username: string, allowEmptyUser = false): OptionsCall {
  const { application: app, deps } = ctx;
  ctx.noteSubject({ username });
  const name = parseUsername(username, app, deps.config.local.enabled, allowEmptyUser);
  ctx.noteVariant(name.variant);
  const origin = name.variant === 'standard' ? requireStandardOrigin(ctx.originHeader, standardOrigins(app)) : null;
  return {
    name,
    origin,
    userHandle: name.user === '' ? '' : deriveUserHandle(deps.secrets.userHandleKey, ctx.clientId, name.username),
    challenge: encodeBase64url(deps.runtime.randomBytes(CHALLENGE_BYTES)),
  };
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
