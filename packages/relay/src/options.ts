// What an integrator configures. Validated once when the relay is created: a wrong option fails at start,
// never on a user's request.
import type { IncomingMessage } from 'node:http';
import type { LocalCredentialStore } from './local-store.js';
import { passkeyEndpointsDocument } from './assets.js';
import { relatedOriginsDocument } from './related-origins.js';

export type RelayVariant = 'standard' | 'local';

/**
 * The request the hooks receive: your framework's own (Express's `req`, Fastify's `request`, node:http's
 * `IncomingMessage`), so `request.session` of express-session or @fastify/session is there. The adapters
 * take it as a type argument: `expressRelay<express.Request>({...})`, `fastifyRelay<FastifyRequest>({...})`.
 */
export type HookRequest = object;

/** What the registration hook is asked (spec point 6: the integrator decides who may register). */
export interface RegistrationRequest<Request extends HookRequest = IncomingMessage> {
  /** The `username` of the attestation options request, e.g. `alice#idp.example.com`. */
  readonly username: string;
  readonly displayName: string | undefined;
  /** Who your session says is signed in (`signedInUser`, full `<user>#<domain>` name), or undefined. */
  readonly signedInUser: string | undefined;
  /** Your framework's request (`req.session` is there). Its body has already been read. */
  readonly request: Request;
}

/** `true` forwards the request; `false` (or `{allowed: false, reason}`) answers 403 REGISTRATION_NOT_ALLOWED. */
export type RegistrationDecision = boolean | { readonly allowed: boolean; readonly reason?: string | undefined };

/** Told once per successful or failed result call, before the answer is written (set a cookie here). */
export interface CeremonyResult<Request extends HookRequest = IncomingMessage> {
  readonly operation: 'attestation' | 'assertion';
  /**
   * Who registered or signed in: the `username` of the service's ok answer (the credential's owner), never
   * what this relay remembers of the options call; undefined when the result failed.
   */
  readonly username: string | undefined;
  readonly credentialId: string | undefined;
  readonly ok: boolean;
  readonly httpStatus: number;
  /**
   * The Signal API's arguments of the service's answer (standard variant): `allAcceptedCredentials` and
   * `currentUserDetails` on ok, `unknownCredential` on a failed sign-in without a user name; else undefined.
   */
  readonly signals: Readonly<Record<string, unknown>> | undefined;
  /**
   * The service's whole answer, `credentialsToken` included (the relay keeps that token in the user's
   * session itself: docs/relay.md, "Sessions").
   */
  readonly body: Readonly<Record<string, unknown>>;
  /** Your framework's request (`req.session` is there). */
  readonly request: Request;
  /** The browser's response: headers may still be set (e.g. Set-Cookie). */
  readonly response: import('node:http').ServerResponse;
}

/** Who is signed in, as the integrator's session says: the user name and the token of their recent sign-in. */
export interface CredentialsSession {
  /** The full `<user>#<domain>` of the signed-in user (the `username` of the ok result). */
  readonly username: string;
  /** The `credentialsToken` of that ok result (at most 10 minutes old). */
  readonly credentialsToken: string;
}

export interface RelayLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface RelayOptions<Request extends HookRequest = IncomingMessage> {
  /** Base address of the passkey service; `/api/attestation/options` etc. are appended to its path. */
  readonly serviceUrl: string;
  /** The application's Client ID, sent as `User-agent: <vendor> AppID: <clientId>`. */
  readonly clientId: string;
  /** The vendor word of the User-agent value. Default `Vendor`. */
  readonly vendor?: string | undefined;
  /**
   * The application's relay secret, sent as `Authorization: Bearer <relaySecret>` on every call to the
   * service (its docs/api.md, "Relay secrets"). Default: the `PASSKEY_RELAY_SECRET` environment variable;
   * neither: no secret sent (an application without relay secrets).
   */
  readonly relaySecret?: string | undefined;
  /** `standard` (default) sends the `origin` header; `local` does the spec's local bookkeeping and sends none. */
  readonly variant?: RelayVariant | undefined;
  /** Standard variant: the page's origin as registered for the application, e.g. `https://idp.example.com`. */
  readonly origin?: string | undefined;
  /**
   * Base path of the relay's own routes, e.g. `/passkey` → `/passkey/attestation/options`. Default `/relay`
   * (where the browser package's calls and elements look by default); `''` puts them at the root.
   */
  readonly prefix?: string | undefined;
  /** Largest accepted browser body in bytes. Default 65536 (the service's default limit). */
  readonly maxBodyBytes?: number | undefined;
  /** Time allowed for the service's whole answer in milliseconds. Default 10000. */
  readonly upstreamTimeoutMs?: number | undefined;
  /**
   * Asked before attestation options are forwarded, instead of the relay's own rule. Default: a name may
   * get a passkey when your session says that user is signed in (`signedInUser`), and, with
   * `allowSignUp`, when it has no passkey yet (a new account); anything else is refused.
   */
  readonly mayRegister?:
    | ((request: RegistrationRequest<Request>) => RegistrationDecision | Promise<RegistrationDecision>)
    | undefined;
  /**
   * The default rule's sign-up: a name that has no passkey yet may register its first one without being
   * signed in (a new account). Default false: only the signed-in user registers, for their own name.
   */
  readonly allowSignUp?: boolean | undefined;
  /**
   * Who your session says is signed in: the user's name (`<user>#<domain>`, or the plain name with
   * `userDomain`), undefined for nobody. Default: the user of the last passkey sign-in (or sign-up) the
   * relay kept in this session. Give it when users also sign in another way (a password), so they can add
   * a passkey, and so that your sign-out is the relay's too.
   */
  readonly signedInUser?: ((request: Request) => string | undefined | Promise<string | undefined>) | undefined;
  /**
   * The object of your user's session where the relay keeps its record (under `passkeyRelay`: who signed
   * in through it and the sign-in's `credentialsToken`). Default: `request.session` (express-session,
   * @fastify/session, cookie-session). No session object: the relay keeps nothing and nobody is signed in.
   */
  readonly session?: ((request: Request) => object | undefined) | undefined;
  /** Local variant: where the `localhost` blobs are kept. Default: in memory (lost on restart). */
  readonly localStore?: LocalCredentialStore | undefined;
  /**
   * Local variant: put the user's kept credentials into `allowCredentials` of assertion options: the
   * service lists only the ids it remembers (30 days, 16 per user), the relay's store keeps them as long
   * as it keeps the blobs (non-discoverable keys need the list). Default true.
   */
  readonly localAllowCredentials?: boolean | undefined;
  /** Told about every result call's outcome. */
  readonly onResult?: ((result: CeremonyResult<Request>) => void | Promise<void>) | undefined;
  /**
   * A user's own passkeys (`<prefix>/credentials/list` and `/delete`), for a session the relay cannot
   * reach through `session`: the signed-in user's name and token; undefined when nobody is signed in (401
   * RELAY_NOT_SIGNED_IN). Default: the relay's own record in the session. With either, the relay never
   * takes them from the browser and removes `credentialsToken` from the result answers the browser gets;
   * with neither (no session object) the browser sends both.
   */
  readonly credentialsSession?:
    | ((request: Request) => CredentialsSession | undefined | Promise<CredentialsSession | undefined>)
    | undefined;
  /**
   * WebAuthn L3 related origins: the https origins on other domains that may use this RP ID. The relay
   * then answers `GET /.well-known/webauthn` with `{"origins": [...]}` (serve it on the RP ID's origin);
   * list the application's `relatedOrigins` as the service has them.
   */
  readonly relatedOrigins?: readonly string[] | undefined;
  /**
   * The domain part of your user names: a plain name from the browser (`alice`) becomes
   * `alice#<userDomain>`, so users never type it. Names that contain `#` pass unchanged.
   */
  readonly userDomain?: string | undefined;
  /**
   * W3C Passkey Endpoints: the pages where a user creates (`enroll`) and manages (`manage`) passkeys, https
   * URLs or paths (with `origin`). The relay then answers `GET /.well-known/passkey-endpoints`, so password
   * managers can link to them (serve it on the RP ID's origin, like `/.well-known/webauthn`).
   */
  readonly passkeyEndpoints?:
    | { readonly enroll?: string | undefined; readonly manage?: string | undefined }
    | undefined;
  readonly log?: RelayLogger | undefined;
}

export interface ResolvedRelayOptions<Request extends HookRequest = HookRequest> {
  readonly serviceUrl: URL;
  readonly userAgent: string;
  /** `Bearer <relay secret>`, or undefined when there is none. */
  readonly authorization: string | undefined;
  readonly variant: RelayVariant;
  readonly origin: string | undefined;
  readonly prefix: string;
  readonly maxBodyBytes: number;
  readonly upstreamTimeoutMs: number;
  readonly mayRegister: RelayOptions<Request>['mayRegister'];
  readonly allowSignUp: boolean;
  readonly signedInUser: RelayOptions<Request>['signedInUser'];
  readonly session: (request: Request) => object | undefined;
  readonly localStore: LocalCredentialStore | undefined;
  readonly localAllowCredentials: boolean;
  readonly onResult: RelayOptions<Request>['onResult'];
  readonly credentialsSession: RelayOptions<Request>['credentialsSession'];
  /** The `/.well-known/webauthn` body, when related origins are configured. */
  readonly wellKnownWebauthn: string | undefined;
  /** The `/.well-known/passkey-endpoints` body, when `passkeyEndpoints` is configured. */
  readonly passkeyEndpoints: string | undefined;
  readonly userDomain: string | undefined;
  /** The domain of a sign-in without a name when `userDomain` is not set: `localhost`, or origin's host. */
  readonly defaultDomain: string | undefined;
  readonly log: RelayLogger | undefined;
}

const TOKEN = /^[\x21-\x7e]+$/; // visible ASCII, no spaces: keeps the User-agent value exactly one token pair
/** What a Bearer credential may hold (RFC 6750 §2.1 b64token), as the service reads it. */
const RELAY_SECRET = /^[A-Za-z0-9\-._~+/]{1,512}=*$/;

const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/** Checks every option and reports all problems at once. */
export function resolveRelayOptions<Request extends HookRequest>(
  options: RelayOptions<Request>,
  defaultStore: () => LocalCredentialStore,
): ResolvedRelayOptions<Request> {
  const problems: string[] = [];
  let serviceUrl: URL | undefined;
  try {
    serviceUrl = new URL(options.serviceUrl);
    if (serviceUrl.protocol !== 'http:' && serviceUrl.protocol !== 'https:')
      problems.push('serviceUrl must be http: or https:');
  } catch {
    problems.push('serviceUrl is not a URL');
  }
  const vendor = options.vendor ?? 'Vendor';
  if (!TOKEN.test(vendor)) problems.push('vendor must be one word of visible ASCII');
  if (typeof options.clientId !== 'string' || !TOKEN.test(options.clientId))
    problems.push('clientId must be a non-empty string of visible ASCII without spaces');
  const relaySecret = options.relaySecret ?? nonEmpty(process.env.PASSKEY_RELAY_SECRET);
  if (relaySecret !== undefined && (typeof relaySecret !== 'string' || !RELAY_SECRET.test(relaySecret)))
    problems.push(
      `relaySecret${options.relaySecret === undefined ? ' (from PASSKEY_RELAY_SECRET)' : ''} must be 1 to 512 letters, digits or -._~+/ (as the service made it)`,
    );
  const variant = options.variant ?? 'standard';
  if (variant !== 'standard' && variant !== 'local') problems.push('variant must be "standard" or "local"');
  let origin: string | undefined;
  if (variant === 'standard') {
    try {
      const url = new URL(options.origin ?? '');
      origin = url.origin;
      if (origin !== options.origin)
        problems.push(`origin must be exactly scheme://host[:port] (did you mean ${origin}?)`);
    } catch {
      problems.push('the standard variant needs origin (the page origin registered for the application)');
    }
  }
  const prefix = (options.prefix ?? '/relay').replace(/\/+$/, '');
  if (prefix !== '' && !prefix.startsWith('/')) problems.push('prefix must start with "/"');
  const maxBodyBytes = options.maxBodyBytes ?? 65_536;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024) problems.push('maxBodyBytes must be an integer ≥ 1024');
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 10_000;
  if (!Number.isInteger(upstreamTimeoutMs) || upstreamTimeoutMs < 1)
    problems.push('upstreamTimeoutMs must be a positive integer');
  if (options.credentialsSession !== undefined && typeof options.credentialsSession !== 'function')
    problems.push('credentialsSession must be a function');
  const wellKnownWebauthn =
    options.relatedOrigins === undefined ? undefined : relatedOriginsBody(options.relatedOrigins, problems);
  const userDomain = options.userDomain;
  if (userDomain !== undefined && (typeof userDomain !== 'string' || !/^[a-z0-9.-]+$/i.test(userDomain)))
    problems.push('userDomain must be a host name, e.g. idp.example.com');
  const passkeyEndpoints =
    options.passkeyEndpoints === undefined
      ? undefined
      : passkeyEndpointsDocument(options.passkeyEndpoints, origin, problems);
  for (const hook of ['mayRegister', 'signedInUser', 'session', 'onResult'] as const)
    if (options[hook] !== undefined && typeof options[hook] !== 'function') problems.push(`${hook} must be a function`);
  if (options.allowSignUp !== undefined && typeof options.allowSignUp !== 'boolean')
    problems.push('allowSignUp must be true or false');
  if (problems.length > 0 || !serviceUrl) throw new Error(`invalid relay options: ${problems.join('; ')}`);
  return {
    serviceUrl,
    userAgent: `${vendor} AppID: ${options.clientId}`,
    authorization: relaySecret === undefined ? undefined : `Bearer ${relaySecret}`,
    variant,
    origin,
    prefix,
    maxBodyBytes,
    upstreamTimeoutMs,
    mayRegister: options.mayRegister,
    allowSignUp: options.allowSignUp ?? false,
    signedInUser: options.signedInUser,
    session: options.session ?? defaultSession,
    localStore: variant === 'local' ? (options.localStore ?? defaultStore()) : undefined,
    localAllowCredentials: options.localAllowCredentials ?? true,
    onResult: options.onResult,
    credentialsSession: options.credentialsSession,
    wellKnownWebauthn,
    passkeyEndpoints,
    userDomain: userDomain?.toLowerCase(),
    defaultDomain: variant === 'local' ? 'localhost' : origin === undefined ? undefined : new URL(origin).hostname,
    log: options.log,
  };
}

/** `request.session` when it is an object (express-session, @fastify/session, cookie-session). */
function defaultSession(request: HookRequest): object | undefined {
  const session = (request as { session?: unknown }).session;
  return session !== null && typeof session === 'object' ? session : undefined;
}

function relatedOriginsBody(origins: readonly string[], problems: string[]): string | undefined {
  if (!Array.isArray(origins) || origins.length === 0) {
    problems.push('relatedOrigins must be a non-empty array of https origins');
    return undefined;
  }
  try {
    return relatedOriginsDocument(origins);
  } catch (error) {
    problems.push(`relatedOrigins: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
