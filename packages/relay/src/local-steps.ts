// The local variant's bookkeeping (spec "Relay behaviour for the local variant"): mark the attestation
// result, keep the `localhost` blob of a registration, send it back with every assertion result, and list
// the kept credentials in assertion options (the service stores nothing there, so it cannot).
import { failedEnvelope } from './errors.js';
import { passkeyFacts } from './local-own-credentials.js';
import type { LocalCredential, LocalCredentialStore } from './local-store.js';
import type { ResolvedRelayOptions } from './options.js';
import type { Body, Outcome } from './outcome.js';

/**
 * The kept blob of a credential. A sign-in by name looks among that user's blobs only; a sign-in without a
 * user name (`#localhost`, the browser chose the credential) or one whose options this relay did not see
 * (restarted, or another instance) looks the id up. The service checks the blob belongs to the ceremony.
 */
export async function findBlob(
  store: LocalCredentialStore,
  username: string | undefined,
  credentialId: string,
  userHandle: string | undefined,
): Promise<LocalCredential | undefined | 'ceremony-unknown'> {
  if (username !== undefined && !username.startsWith('#')) return store.find(username, credentialId);
  if (store.findById) return store.findById(credentialId, userHandle);
  return username === undefined ? 'ceremony-unknown' : undefined;
}

/**
 * Local step 2: keep the `localhost` string of a successful attestation result, per user and credential;
 * an id the user already has is refused (DUPLICATED_CREDENTIAL_ID), never filed over their blob.
 */
export async function keepBlob(
  config: ResolvedRelayOptions,
  username: string,
  credentialId: string,
  body: Body,
  outcome: Outcome,
): Promise<Outcome> {
  const localhost = outcome.body.localhost;
  if (typeof localhost !== 'string') return outcome; // the service answered ok without a blob: pass it on as is
  const transports = (body.response as { transports?: unknown } | undefined)?.transports;
  const userHandle = outcome.body.userHandle;
  try {
    // Never in place of a kept blob: the user's passkey would stop working, and the registration would
    // count as their first (a credentialsToken for their account). Issue 33.
    if ((await config.localStore!.find(username, credentialId)) !== undefined) {
      config.log?.warn({ username, credentialId }, 'relay refused a registration of a credential id the user has');
      return failedEnvelope('DUPLICATED_CREDENTIAL_ID');
    }
    await config.localStore!.save({
      username,
      credentialId,
      localhost,
      transports: Array.isArray(transports) ? transports.filter((t): t is string => typeof t === 'string') : [],
      createdAt: Date.now(),
      ...(typeof userHandle === 'string' && userHandle !== '' ? { userHandle } : {}),
      ...passkeyFacts(outcome.body),
    });
    return outcome;
  } catch (error) {
    config.log?.error({ username, error: String(error) }, 'relay could not keep the localhost blob');
    return failedEnvelope('RELAY_STORE_FAILED');
  }
}

/**
 * The service keeps no keys in the local variant and remembers its credential ids only for a while; the
 * relay keeps them as long as their blobs. A non-discoverable key (e.g. a U2F security key) is only found
 * when its id is in allowCredentials.
 */
export async function withKeptCredentials(
  config: ResolvedRelayOptions,
  username: string,
  outcome: Outcome,
): Promise<Outcome> {
  if (outcome.body.status !== 'ok') return outcome;
  const kept = await config.localStore!.list(username);
  if (kept.length === 0) return outcome;
  const allowCredentials = kept.map((entry) => ({
    type: 'public-key',
    id: entry.credentialId,
    ...(entry.transports.length > 0 ? { transports: entry.transports } : {}),
  }));
  return { ...outcome, raw: undefined, body: { ...outcome.body, allowCredentials } };
}

export function withExtension(body: Body, localhost: true | string): Body {
  const extensions = body.extensions;
  if (extensions === undefined) return { ...body, extensions: { localhost } };
  // A non-object is the browser's mistake: pass it on so the service names it precisely.
  if (extensions === null || typeof extensions !== 'object' || Array.isArray(extensions)) return body;
  return { ...body, extensions: { ...(extensions as Body), localhost } };
}
