// A user's own passkeys (docs/api.md "A user's own passkeys"): POST /api/credentials/list, /delete and
// /rename, the narrow path a relay exposes to a signed-in user. The application is the
// caller's, as for the four operations (Client ID and origin header); the user is the one a
// credentialsToken was issued for by a recent ok result (credentials-token.ts). Standard variant only: the
// local variant stores no credentials (the relay keeps the blobs).

import { bundledCatalog, describeAuthenticator } from '../authenticators/index.js';
import { FidoError } from '../errors/catalogue.js';
import type {
  CredentialsDeleteFields,
  CredentialsListFields,
  CredentialsRenameFields,
  OwnCredential,
} from '../schemas/credentials.js';
import type { CredentialRecord } from '../stores/types.js';
import type { CeremonyContext } from './context.js';
import { checkCredentialsToken } from './credentials-token.js';
import { requireStandardOrigin, standardOrigins } from './origins.js';
import type { CredentialsDeleteRequest, CredentialsListRequest, CredentialsRenameRequest } from './inputs.js';
import { normalizeNickname } from './nickname.js';
import { acceptedSignals } from './signals.js';
import { userHandleFor } from './user-handle.js';
import { parseUsername } from './username.js';
import { eventMessages } from './events.js';
import { credentialData } from '../webhooks/events.js';

interface Owner {
  readonly username: string;
  readonly userHandle: string;
}

/** Every credential of the token's user, with what a person needs to tell them apart, and the signals. */
export async function listOwnCredentials(
  ctx: CeremonyContext,
  request: CredentialsListRequest,
): Promise<CredentialsListFields> {
  const owner = await authorizedOwner(ctx, request.username, request.credentialsToken);
  const owned = await ctx.deps.credentials.listByUser(ctx.clientId, owner.userHandle);
  return {
    username: owner.username,
    credentials: owned.map(ownView),
    signals: acceptedSignals(ctx.application.domain, owner, owned),
  };
}

/**
 * Deletes one credential of the token's user. Another user's credential, another application's and an
 * unknown id fail alike (CREDENTIAL_ID_NOT_FOUND), so the answer never says that an id exists elsewhere.
 * Audited as credential.delete-own (audit/hooks.ts); answers the credentials left, as signals.
 */
export async function deleteOwnCredential(
  ctx: CeremonyContext,
  request: CredentialsDeleteRequest,
): Promise<CredentialsDeleteFields> {
  const { credentialId } = request;
  // Noted first: a delete refused for its token is audited with the credential it aimed at.
  ctx.noteSubject({ credentialId });
  const owner = await authorizedOwner(ctx, request.username, request.credentialsToken);
  const stored = await ctx.deps.credentials.find(ctx.clientId, credentialId);
  const notTheirs = 'No credential with this id belongs to this user of this application.';
  if (stored === undefined || stored.userHandle !== owner.userHandle)
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', notTheirs);
  // false: deleted by a concurrent call (or the admin API) since it was read; the same answer as unknown.
  const events = eventMessages(ctx, 'credential.deleted', { ...credentialData(stored), by: 'user' });
  if (!(await ctx.deps.credentials.delete(ctx.clientId, credentialId, events)))
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', notTheirs);
  const owned = await ctx.deps.credentials.listByUser(ctx.clientId, owner.userHandle);
  return { username: owner.username, credentialId, signals: acceptedSignals(ctx.application.domain, owner, owned) };
}

/**
 * Renames (or with null un-names) one credential of the token's user: `nickname` in the answer and in the
 * list from then on. Refused like a delete (CREDENTIAL_ID_NOT_FOUND for any id not theirs); a name outside
 * the rule is INVALID_NICKNAME, checked before anything is read. Audited as credential.rename-own; webhook
 * `passkey.updated` with the change, written with it.
 */
export async function renameOwnCredential(
  ctx: CeremonyContext,
  request: CredentialsRenameRequest,
): Promise<CredentialsRenameFields> {
  const { credentialId } = request;
  ctx.noteSubject({ credentialId });
  const owner = await authorizedOwner(ctx, request.username, request.credentialsToken);
  const nickname = normalizeNickname(request.nickname);
  const stored = await ctx.deps.credentials.find(ctx.clientId, credentialId);
  const notTheirs = 'No credential with this id belongs to this user of this application.';
  if (stored === undefined || stored.userHandle !== owner.userHandle)
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', notTheirs);
  const events = eventMessages(ctx, 'passkey.updated', {
    ...credentialData(stored),
    nickname,
    changes: { nickname: { from: stored.nickname ?? null, to: nickname } },
    by: 'user',
  });
  if (!(await ctx.deps.credentials.rename(ctx.clientId, credentialId, nickname, events)))
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', notTheirs);
  return { username: owner.username, credentialId, nickname };
}

/**
 * The user whose credentials this call may touch: the username names a user of this application's domain
 * (standard variant), the origin header is one of the application's, and the token was issued for that
 * user of this application and is still valid.
 */
async function authorizedOwner(ctx: CeremonyContext, username: string, token: string): Promise<Owner> {
  const { application: app, deps } = ctx;
  ctx.noteSubject({ username });
  const name = parseUsername(username, app, deps.config.local.enabled);
  ctx.noteVariant(name.variant);
  if (name.variant === 'local') {
    throw new FidoError(
      'VARIANT_NOT_ALLOWED',
      'The local variant stores no credentials (the relay keeps the blobs); manage them there.',
    );
  }
  requireStandardOrigin(ctx.originHeader, standardOrigins(app));
  const userHandle = await userHandleFor(deps.credentials, deps.secrets.userHandleKey, ctx.clientId, name.username);
  checkCredentialsToken(deps.secrets.userHandleKey, ctx.clientId, userHandle, token, deps.runtime.now());
  return { username: name.username, userHandle };
}

function ownView(record: CredentialRecord): OwnCredential {
  const authenticator = describeAuthenticator(
    { aaguid: record.aaguid, metadataName: record.authenticatorName, proven: record.aaguidProven === true },
    bundledCatalog(),
  );
  return {
    credentialId: record.credentialId,
    nickname: record.nickname ?? null,
    authenticatorName: authenticator.name,
    authenticatorVerified: authenticator.verified,
    authenticatorIconLight: authenticator.iconLight,
    authenticatorIconDark: authenticator.iconDark,
    aaguid: record.aaguid,
    backupEligible: record.backupEligible,
    backupState: record.backupState,
    discoverable: record.residentKey,
    transports: [...record.transports],
    createdAt: new Date(record.createdAt).toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
  };
}
