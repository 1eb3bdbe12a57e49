// Thin adapters for the two most common Node frameworks. Neither framework is imported: the shapes below
// are the few members the adapters use, so the relay stays dependency-free.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { failedEnvelope } from './errors.js';
import type { HookRequest, RelayOptions } from './options.js';
import { createRelay, RELAY_OPERATIONS, WELL_KNOWN_WEBAUTHN, type Relay, type RelayAnswer } from './relay.js';

/**
 * Express / Connect middleware: `app.use(expressRelay({...}))`. Works with or without `express.json()` before
 * it. The hooks receive Express's `req` (with `req.session`); in TypeScript name its type:
 * `expressRelay<express.Request>({...})`.
 */
export function expressRelay<Request extends IncomingMessage = IncomingMessage>(
  options: RelayOptions<Request> | Relay<Request>,
): Relay<Request>['handler'] {
  return asRelay(options).handler;
}

export interface FastifyReplyLike {
  readonly raw: ServerResponse;
  code(status: number): FastifyReplyLike;
  header(name: string, value: string | number): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

export interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

export interface FastifyLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    options: { parseAs: 'buffer'; bodyLimit: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  setErrorHandler(
    handler: (error: Error & { statusCode?: number }, request: unknown, reply: FastifyReplyLike) => unknown,
  ): void;
  post(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): void;
  /** Fastify answers HEAD for a GET route by itself. */
  get(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): void;
}

/**
 * Fastify plugin: `await app.register(fastifyRelay({...}))`. The hooks receive Fastify's `request` (with
 * `request.session`); in TypeScript name its type: `fastifyRelay<FastifyRequest>({...})`. The relay reads the raw JSON itself (its own
 * size limit, its own envelope for bad bodies); the parsers are replaced inside this plugin's scope only.
 * It also routes GET `<prefix>/passkeys.mjs` and `<prefix>/passkeys.js`, and, with `relatedOrigins` or
 * `passkeyEndpoints`, GET /.well-known/webauthn or /.well-known/passkey-endpoints (register it without a
 * plugin prefix).
 */
export function fastifyRelay<Request extends HookRequest = FastifyRequestLike>(
  options: RelayOptions<Request> | Relay<Request>,
): (fastify: FastifyLike) => Promise<void> {
  const relay = asRelay(options);
  return async (fastify) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: relay.maxBodyBytes }, (_request, body, done) =>
      done(null, body),
    );
    fastify.setErrorHandler((error, _request, reply) => {
      const name =
        error.statusCode === 413
          ? 'PAYLOAD_TOO_LARGE'
          : error.statusCode === 415
            ? 'UNSUPPORTED_MEDIA_TYPE'
            : 'MALFORMED_JSON';
      const failure = failedEnvelope(name);
      return reply.code(failure.status).header('cache-control', 'no-store').send(failure.body);
    });
    for (const operation of RELAY_OPERATIONS) {
      fastify.post(`${relay.prefix}/${operation}`, async (request, reply) => {
        const contentType = request.headers['content-type'];
        const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const answer = await relay.relay(
          operation,
          { kind: 'raw', contentType: typeof contentType === 'string' ? contentType : undefined, bytes },
          request.raw,
          reply.raw,
          request as unknown as Request,
        );
        return sendFastify(reply, answer);
      });
    }
    for (const [path, file] of relay.assets) {
      fastify.get(path, async (request, reply) => {
        const tag = request.headers['if-none-match'];
        reply.header('etag', file.etag).header('cache-control', file.cacheControl);
        reply.header('x-content-type-options', 'nosniff');
        if (typeof tag === 'string' && tag.split(',').some((one) => one.trim() === file.etag))
          return reply.code(304).send();
        return reply.code(200).header('content-type', file.contentType).send(file.body);
      });
    }
    const related = relay.relatedOrigins;
    if (related !== undefined) {
      fastify.get(WELL_KNOWN_WEBAUTHN, async (_request, reply) =>
        reply
          .code(200)
          .header('content-type', 'application/json; charset=utf-8')
          .header('cache-control', 'public, max-age=300')
          .send(related),
      );
    }
  };
}

function sendFastify(reply: FastifyReplyLike, answer: RelayAnswer): FastifyReplyLike {
  reply
    .code(answer.status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store');
  if (answer.retryAfter !== undefined) reply.header('retry-after', answer.retryAfter);
  return reply.send(answer.payload);
}

function asRelay<Request extends HookRequest>(options: RelayOptions<Request> | Relay<Request>): Relay<Request> {
  return 'relay' in options && typeof options.relay === 'function'
    ? (options as Relay<Request>)
    : createRelay(options as RelayOptions<Request>);
}
