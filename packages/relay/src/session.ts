// The relay's record in the integrator's own session (docs/relay.md, "Sessions"): who signed in through
// it and the `credentialsToken` of that sign-in. The relay writes it from every ok sign-in and from the
// registration of a user's first passkey (the answers that carry a token), keeps it when a signed-in user
// adds a passkey (that answer carries none), and it goes when the session goes (sign-out). It decides who
// may register (the default rule) and whose passkeys `<prefix>/credentials/*` manage; no onResult glue.
import type { Envelope } from './errors.js';
import type { CredentialsSession, HookRequest, ResolvedRelayOptions } from './options.js';
import { fullUsername } from './user-domain.js';

/** The session member the relay owns. */
export const SESSION_KEY = 'passkeyRelay';

interface SessionRecord {
  readonly username: string;
  readonly credentialsToken?: string;
}

/** What the session says, read once per call. */
export interface SessionView {
  /** The session object the relay may write to; undefined when the request has none. */
  readonly session: object | undefined;
  /** Who is signed in: `signedInUser` when given, else the relay's record. */
  readonly signedInUser: string | undefined;
  /** The signed-in user's name and token, when the session holds both. */
  readonly credentials: CredentialsSession | undefined;
}

export async function readSession(config: ResolvedRelayOptions, request: HookRequest): Promise<SessionView> {
  const session = sessionObject(config, request);
  const record = session === undefined ? undefined : recordOf(session);
  const signedInUser = config.signedInUser ? await askSignedInUser(config, request) : record?.username;
  let credentials: CredentialsSession | undefined;
  if (config.credentialsSession) {
    credentials = await askCredentialsSession(config, request);
  } else if (record?.credentialsToken !== undefined && record.username === signedInUser) {
    // A record of someone else than the session's signed-in user is stale (the integrator signed them out).
    credentials = { username: record.username, credentialsToken: record.credentialsToken };
  }
  return { session, signedInUser: signedInUser ?? credentials?.username, credentials };
}

/** Whether the relay manages the user's token on the server (the browser never sees it). */
export function keepsTokens(config: ResolvedRelayOptions, view: SessionView): boolean {
  return config.credentialsSession !== undefined || view.session !== undefined;
}

/**
 * After an ok result: a sign-in, or a first passkey's registration, names the session's user and its new
 * token; adding a passkey (no token in the answer) keeps the record of the user it was added for.
 */
export function keepResult(view: SessionView, owner: string | undefined, body: Envelope): void {
  if (view.session === undefined || owner === undefined || body.status !== 'ok') return;
  const token = body.credentialsToken;
  if (typeof token === 'string' && token !== '') {
    writeRecord(view.session, { username: owner, credentialsToken: token });
    return;
  }
  const record = recordOf(view.session);
  if (record?.username !== owner) writeRecord(view.session, { username: owner });
}

function sessionObject(config: ResolvedRelayOptions, request: HookRequest): object | undefined {
  try {
    const session = config.session(request);
    return session !== null && typeof session === 'object' ? session : undefined;
  } catch (error) {
    config.log?.error({ error: String(error) }, 'session hook failed');
    return undefined;
  }
}

function recordOf(session: object): SessionRecord | undefined {
  const value = readMember(session);
  if (value === null || typeof value !== 'object') return undefined;
  const { username, credentialsToken } = value as Record<string, unknown>;
  if (typeof username !== 'string' || username === '') return undefined;
  return typeof credentialsToken === 'string' ? { username, credentialsToken } : { username };
}

/** @fastify/session's sessions offer get/set; express-session's and cookie-session's are plain members. */
function readMember(session: object): unknown {
  const { get } = session as { get?: unknown };
  return typeof get === 'function' ? get.call(session, SESSION_KEY) : (session as Record<string, unknown>)[SESSION_KEY];
}

function writeRecord(session: object, record: SessionRecord): void {
  const value = { ...record };
  const { set } = session as { set?: unknown };
  if (typeof set === 'function') set.call(session, SESSION_KEY, value);
  else (session as Record<string, unknown>)[SESSION_KEY] = value;
}

async function askSignedInUser(config: ResolvedRelayOptions, request: HookRequest): Promise<string | undefined> {
  try {
    const name = await config.signedInUser!(request);
    return typeof name === 'string' && name !== '' ? fullUsername(config, name) : undefined;
  } catch (error) {
    // Fail closed: a hook that cannot say who is signed in has not said anyone is.
    config.log?.error({ error: String(error) }, 'signedInUser hook failed');
    return undefined;
  }
}

async function askCredentialsSession(
  config: ResolvedRelayOptions,
  request: HookRequest,
): Promise<CredentialsSession | undefined> {
  try {
    const session = await config.credentialsSession!(request);
    if (session === undefined || typeof session.username !== 'string' || typeof session.credentialsToken !== 'string')
      return undefined;
    return { username: session.username, credentialsToken: session.credentialsToken };
  } catch (error) {
    config.log?.error({ error: String(error) }, 'credentialsSession hook failed');
    return undefined;
  }
}
