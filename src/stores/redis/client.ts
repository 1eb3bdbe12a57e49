// The one file that imports `redis` (node-redis): the stores of this folder make their clients here, each
// with its own bounds and reconnect rule, and tell Redis's own error replies from an unreachable server.
import { createClient, ErrorReply } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;
export type RedisClientOptions = NonNullable<Parameters<typeof createClient>[0]>;

export function newRedisClient(options: RedisClientOptions): RedisClient {
  return createClient(options) as RedisClient;
}

/** Redis answered with an error of its own (a bug, e.g. a bad script), as opposed to being unreachable. */
export function isReplyError(error: unknown): boolean {
  return error instanceof ErrorReply;
}
