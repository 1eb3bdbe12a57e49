// Local variant: a signed-in user's own passkeys, from the relay's local store (docs/relay.md "A user's own
// passkeys"). The local service keeps no credential and issues no credentialsToken, so the relay issues its
// own with each ok local result (every sign-in, and the registration of the user's first passkey here, as
// the service does) and checks it on `credentials/list` and `credentials/delete`, which it answers itself
// in the service's shapes. The token is an HMAC under a key this relay instance makes at start: valid for
// 10 minutes, for one user name, at the instance that issued it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { failedEnvelope, type Envelope } from './errors.js';
import type { LocalCredential, LocalCredentialStore, LocalPasskeyFacts } from './local-store.js';
import type { ResolvedRelayOptions } from './options.js';
import type { Body, Outcome } from './outcome.js';

/** As long as the service's own credentialsToken lasts. */
export const LOCAL_TOKEN_MS = 10 * 60 * 1000;
const keys = new WeakMap<ResolvedRelayOptions, Buffer>();

function mac(config: ResolvedRelayOptions, username: string, expiry: string): Buffer {
  let key = keys.get(config);
  if (key === undefined) {
    key = randomBytes(32);
    keys.set(config, key);
  }
  return createHmac('sha256', key).update(`relay-local-v1\u0000${username}\u0000${expiry}`, 'utf8').digest();
}

export function issueLocalToken(config: ResolvedRelayOptions, username: string, now = Date.now()): string {
  const expiry = (now + LOCAL_TOKEN_MS).toString(36);
  return `rl1.${expiry}.${mac(config, username, expiry).toString('base64url')}`;
}

function tokenProblem(
  config: ResolvedRelayOptions,
  username: string,
  token: string,
  now = Date.now(),
): 'CREDENTIALS_TOKEN_INVALID' | 'CREDENTIALS_TOKEN_EXPIRED' | undefined {
  const [version, expiry, sent, ...rest] = token.split('.');
  if (version !== 'rl1' || expiry === undefined || sent === undefined || rest.length > 0)
    return 'CREDENTIALS_TOKEN_INVALID';
  const expected = mac(config, username, expiry);
  const given = Buffer.from(sent, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'CREDENTIALS_TOKEN_INVALID';
  return Number.parseInt(expiry, 36) <= now ? 'CREDENTIALS_TOKEN_EXPIRED' : undefined;
}

/** What an attestation result's answer says of the passkey, kept with its blob for the user's list. */
export function passkeyFacts(answer: Envelope): { facts?: LocalPasskeyFacts } {
  const { aaguid, authenticatorName, authenticatorVerified, backupEligible, backupState } = answer;
  if (typeof aaguid !== 'string') return {};
  return {
    facts: {
      aaguid,
      authenticatorName: typeof authenticatorName === 'string' ? authenticatorName : null,
      authenticatorVerified: authenticatorVerified === true,
      backupEligible: backupEligible === true,
      backupState: backupState === true,
    },
  };
}

/**
 * An ok local result as the browser and `onResult` get it: with the relay's credentialsToken (a registration:
 * only the user's first passkey kept here); a sign-in also notes when the passkey was last used.
 */
export async function withLocalToken(
  config: ResolvedRelayOptions,
  kind: 'attestation' | 'assertion',
  outcome: Outcome,
  used: LocalCredential | undefined,
): Promise<Outcome> {
  const store = config.localStore!;
  const username = outcome.body.username;
  if (outcome.body.status !== 'ok' || typeof username !== 'string' || username === '') return outcome;
  if (kind === 'assertion' && used !== undefined)
    await store.save({ ...used, lastUsedAt: Date.now() }).catch(() => undefined); // a courtesy for the list
  if (kind === 'attestation' && (await store.list(username)).length !== 1) return outcome;
  return { ...outcome, raw: undefined, body: { ...outcome.body, credentialsToken: issueLocalToken(config, username) } };
}

const ok = (fields: Record<string, unknown>): Outcome => ({
  status: 200,
  body: { status: 'ok', errorMessage: '', sessionId: '', ...fields },
});

/** `credentials/list`, `/delete` and `/rename` of the local variant, answered from the store. */
export async function localOwnCredentials(
  config: ResolvedRelayOptions,
  operation: 'credentials/list' | 'credentials/delete' | 'credentials/rename',
  body: Body,
): Promise<Outcome> {
  const store = config.localStore!;
  const { username, credentialsToken, credentialId } = body;
  if (typeof username !== 'string' || typeof credentialsToken !== 'string')
    return failedEnvelope('CREDENTIALS_TOKEN_INVALID', 'username and credentialsToken of a recent sign-in are needed.');
  const problem = tokenProblem(config, username, credentialsToken);
  if (problem !== undefined) return failedEnvelope(problem);
  if (operation === 'credentials/rename') return localRename(store, username, credentialId, body.nickname);
  let userHandle: string | undefined;
  if (operation === 'credentials/delete') {
    const target = typeof credentialId === 'string' ? await store.find(username, credentialId) : undefined;
    if (target === undefined || !store.delete || !(await store.delete(username, target.credentialId)))
      return failedEnvelope('CREDENTIAL_ID_NOT_FOUND');
    userHandle = target.userHandle;
  }
  const kept = await store.list(username);
  const signals = signalsOf(kept, userHandle);
  return ok({
    username,
    ...(operation === 'credentials/delete' ? { credentialId } : { credentials: kept.map(view) }),
    ...(signals === undefined ? {} : { signals }),
  });
}

/** The service's rule for a passkey's name (docs/api.md "POST /api/credentials/rename"): trimmed, 1-64 characters. */
function localNickname(value: unknown): string | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  const length = [...trimmed].length;
  if (length === 0 || length > 64 || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed) || /[\uD800-\uDFFF]/u.test(trimmed))
    return undefined;
  return trimmed;
}

async function localRename(
  store: LocalCredentialStore,
  username: string,
  credentialId: unknown,
  nickname: unknown,
): Promise<Outcome> {
  const name = localNickname(nickname);
  if (name === undefined) return failedEnvelope('INVALID_NICKNAME');
  const target = typeof credentialId === 'string' ? await store.find(username, credentialId) : undefined;
  if (target === undefined) return failedEnvelope('CREDENTIAL_ID_NOT_FOUND');
  await store.save({ ...target, nickname: name });
  return ok({ username, credentialId: target.credentialId, nickname: name });
}

/** The user's passkey as the service's list shows one (docs/api.md "A user's own passkeys"). */
function view(entry: LocalCredential): Record<string, unknown> {
  const facts = entry.facts;
  return {
    credentialId: entry.credentialId,
    nickname: entry.nickname ?? null,
    authenticatorName: facts?.authenticatorName ?? null,
    authenticatorVerified: facts?.authenticatorVerified ?? false,
    authenticatorIconLight: null,
    authenticatorIconDark: null,
    aaguid: facts?.aaguid ?? '00000000-0000-0000-0000-000000000000',
    backupEligible: facts?.backupEligible ?? false,
    backupState: facts?.backupState ?? false,
    discoverable: null,
    transports: [...entry.transports],
    createdAt: new Date(entry.createdAt).toISOString(),
    lastUsedAt: entry.lastUsedAt === undefined ? null : new Date(entry.lastUsedAt).toISOString(),
  };
}

/**
 * The credentials the relay keeps for the user, for the password manager (RP ID localhost), when it knows
 * the user handle (from the kept entries, or the one just deleted).
 */
function signalsOf(kept: readonly LocalCredential[], deleted: string | undefined): Record<string, unknown> | undefined {
  const userId = deleted ?? kept.find((entry) => entry.userHandle !== undefined)?.userHandle;
  if (userId === undefined) return undefined;
  const ids = kept.filter((entry) => entry.userHandle === undefined || entry.userHandle === userId);
  return {
    allAcceptedCredentials: { rpId: 'localhost', userId, allAcceptedCredentialIds: ids.map((e) => e.credentialId) },
  };
}
