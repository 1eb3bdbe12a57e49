// The relay: the integrator's endpoint on the page's own origin (spec point 5). It maps its paths onto
// the service's `/api/…` paths, sets the caller headers itself, and passes the service's answer through.
// In the local variant it does the spec's three bookkeeping steps around the `localhost` blob
// (local-steps.ts); a user's own passkeys go through own-credentials.ts; it can serve the related origins
// document at /.well-known/webauthn. This file reads the call; operations.ts runs it, answer.ts writes the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type RelayAnswer, send, sendRelatedOrigins, toAnswer } from './answer.js';
import { type Asset, relayAssets, sendAsset } from './assets.js';
import { failedEnvelope, type RelayErrorName } from './errors.js';
import { isJsonContentType, parseJsonObject, readJsonBody, type BodyResult } from './body.js';
import { PendingCeremonies } from './ceremonies.js';
import { MemoryLocalStore } from './local-store.js';
import { RELAY_OPERATIONS, type RelayOperation, run } from './operations.js';
import { foreignCallRefusal } from './same-origin.js';
import { type HookRequest, resolveRelayOptions, type RelayOptions } from './options.js';
import type { Body } from './outcome.js';
import type { ResolvedRelayOptions } from './options.js';

export type { RelayAnswer } from './answer.js';
export { RELAY_OPERATIONS, type RelayOperation } from './operations.js';

/** Where WebAuthn L3 §5.11 has browsers look for the related origins of an RP ID (on https://<rpId>). */
export const WELL_KNOWN_WEBAUTHN = '/.well-known/webauthn';

/** What the browser sent: raw bytes (node:http, Fastify) or a body a framework already parsed (Express). */
export type RelayInput =
  | { readonly kind: 'raw'; readonly contentType: string | undefined; readonly bytes: Buffer }
  | { readonly kind: 'parsed'; readonly body: unknown };

export interface Relay<Request extends HookRequest = IncomingMessage> {
  /** The normalised path prefix ('' or '/something'). */
  readonly prefix: string;
  readonly maxBodyBytes: number;
  /** `node:http` / Connect / Express handler. Paths that are not the relay's go to `next` (or get 404). */
  readonly handler: (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void;
  /** The operation a path names, or undefined. */
  operationOf(pathname: string): RelayOperation | undefined;
  /** The `/.well-known/webauthn` body (`relatedOrigins` option), or undefined when none is configured. */
  readonly relatedOrigins: string | undefined;
  /** The files it serves on GET, by path: `<prefix>/passkeys.mjs`, `<prefix>/passkeys.js`, and the Passkey Endpoints document. */
  readonly assets: ReadonlyMap<string, Asset>;
  /**
   * Framework-neutral core: one browser call in, the answer to send out. Never throws. `request` is Node's
   * request; `hookRequest` the framework's own, which the hooks receive (default: `request`).
   */
  relay(
    operation: RelayOperation,
    input: RelayInput,
    request: IncomingMessage,
    response: ServerResponse,
    hookRequest?: Request,
  ): Promise<RelayAnswer>;
}

export function createRelay<Request extends HookRequest = IncomingMessage>(
  options: RelayOptions<Request>,
): Relay<Request> {
  const config = resolveRelayOptions(options, () => new MemoryLocalStore());
  const pending = new PendingCeremonies();
  const paths = new Map(RELAY_OPERATIONS.map((operation) => [`${config.prefix}/${operation}`, operation]));
  const operationOf = (pathname: string) => paths.get(pathname);

  async function relay(
    operation: RelayOperation,
    input: RelayInput,
    request: IncomingMessage,
    response: ServerResponse,
    hookRequest?: Request,
  ): Promise<RelayAnswer> {
    try {
      // Whatever parsed the body before the relay, a call that is not the page's own JSON call goes no further.
      const foreign = refusalOf(request);
      if (foreign !== undefined) return foreign;
      const parsed = parseInput(input, config.maxBodyBytes);
      if (parsed.kind !== 'ok') return toAnswer(failedEnvelope(bodyError(parsed)));
      const call = { raw: request, request: hookRequest ?? request, response };
      const outcome = await run(config as ResolvedRelayOptions, pending, operation, parsed.value, call);
      return toAnswer(outcome);
    } catch (error) {
      config.log?.error({ operation, error: String(error) }, 'relay failed');
      return toAnswer(failedEnvelope('RELAY_INTERNAL_ERROR'));
    }
  }

  const assets = relayAssets(config.prefix, config.passkeyEndpoints);

  function refusalOf(request: IncomingMessage): RelayAnswer | undefined {
    const name = foreignCallRefusal(config as ResolvedRelayOptions, request);
    if (name === undefined) return undefined;
    if (name === 'CROSS_SITE_REQUEST') {
      const { origin, 'sec-fetch-site': site } = request.headers;
      config.log?.warn(
        { path: request.url, origin: origin ?? null, secFetchSite: site ?? null },
        'cross-site call refused',
      );
    }
    return toAnswer(failedEnvelope(name));
  }

  const handler: Relay<Request>['handler'] = (request, response, next) => {
    const pathname = pathnameOf(request.url);
    const file = assets.get(pathname);
    if (file !== undefined) {
      request.resume();
      const tag = request.headers['if-none-match'];
      return void sendAsset(response, request.method ?? '', typeof tag === 'string' ? tag : undefined, file);
    }
    if (pathname === WELL_KNOWN_WEBAUTHN && config.wellKnownWebauthn !== undefined) {
      request.resume();
      return void sendRelatedOrigins(response, request.method ?? '', config.wellKnownWebauthn);
    }
    const operation = operationOf(pathname);
    if (operation === undefined) {
      if (next) return next();
      return void send(response, toAnswer(failedEnvelope('NOT_FOUND')));
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      request.resume();
      return void send(response, toAnswer(failedEnvelope('METHOD_NOT_ALLOWED')));
    }
    const foreign = refusalOf(request);
    if (foreign !== undefined) {
      request.resume();
      return void send(response, foreign);
    }
    void inputOf(request, config.maxBodyBytes)
      .then((input) => (input.kind === 'answer' ? input.answer : relay(operation, input, request, response)))
      .then(
        (answer) => send(response, answer),
        (error) => {
          config.log?.error({ operation, error: String(error) }, 'relay failed');
          send(response, toAnswer(failedEnvelope('RELAY_INTERNAL_ERROR')));
        },
      );
  };

  return {
    prefix: config.prefix,
    maxBodyBytes: config.maxBodyBytes,
    handler,
    operationOf,
    relay,
    relatedOrigins: config.wellKnownWebauthn,
    assets,
  };
}

/** The path of a request target; an unparsable one (e.g. a broken absolute-form URL) matches nothing. */
function pathnameOf(target: string | undefined): string {
  try {
    return new URL(target ?? '/', 'http://relay.invalid').pathname;
  } catch {
    return '';
  }
}

/** Reads the body unless a framework (e.g. express.json()) already did. */
async function inputOf(
  request: IncomingMessage,
  limit: number,
): Promise<RelayInput | { kind: 'answer'; answer: RelayAnswer }> {
  const preParsed = (request as { body?: unknown }).body;
  if (preParsed !== undefined && request.readableEnded) {
    return Buffer.isBuffer(preParsed) || typeof preParsed === 'string'
      ? { kind: 'raw', contentType: request.headers['content-type'], bytes: Buffer.from(preParsed) }
      : { kind: 'parsed', body: preParsed };
  }
  const result = await readJsonBody(request, limit);
  if (result.kind !== 'ok') return { kind: 'answer', answer: toAnswer(failedEnvelope(bodyError(result))) };
  return { kind: 'parsed', body: result.value };
}

function parseInput(input: RelayInput, limit: number): BodyResult {
  if (input.kind === 'parsed') {
    const body = input.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body))
      return { kind: 'malformed' };
    return { kind: 'ok', value: body as Body };
  }
  if (!isJsonContentType(input.contentType)) return { kind: 'not-json-type' };
  if (input.bytes.length > limit) return { kind: 'too-large' };
  return parseJsonObject(input.bytes.toString('utf8'));
}

function bodyError(result: Exclude<BodyResult, { kind: 'ok' }>): RelayErrorName {
  if (result.kind === 'too-large') return 'PAYLOAD_TOO_LARGE';
  if (result.kind === 'not-json-type') return 'UNSUPPORTED_MEDIA_TYPE';
  return 'MALFORMED_JSON';
}
