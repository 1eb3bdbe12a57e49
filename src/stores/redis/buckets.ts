// Buckets in Redis, shared by every instance of a deployment. One Lua script checks and takes from all the
// buckets of a request atomically (Redis runs a script without interleaving), so two instances can never
// both spend the last token. Each bucket is a hash {t: tokens, u: last refill ms} that expires once it
// would be full again, so idle buckets cost nothing.
import { newRedisClient, type RedisClient } from './client.js';
import { retryAfterSeconds } from '../token-bucket.js';
import type { BucketDecision, BucketRequest, BucketStore } from '../types.js';
import { StoreUnavailableError } from '../../errors/catalogue.js';

// KEYS: bucket keys. ARGV[1]: now (ms); then per key: burst, perSecond.
// Same steps as token-bucket.ts: refill for the elapsed time (never negative), deny with the longest wait
// if any bucket lacks a whole token, else take one from each.
const CONSUME_SCRIPT = `
local now = tonumber(ARGV[1])
local tokens = {}
local updated = {}
local wait = 0
for i = 1, #KEYS do
  local burst = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  local state = redis.call('HMGET', KEYS[i], 't', 'u')
  local t = tonumber(state[1])
  local u = tonumber(state[2])
  if t == nil or u == nil then
    t = burst
    u = now
  end
  t = math.min(burst, t + math.max(0, now - u) * rate / 1000)
  tokens[i] = t
  updated[i] = math.max(now, u)
  if t < 1 then
    local w = math.ceil((1 - t) * 1000 / rate)
    if w > wait then wait = w end
  end
end
if wait > 0 then
  return {0, wait}
end
for i = 1, #KEYS do
  local burst = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  local left = tokens[i] - 1
  redis.call('HSET', KEYS[i], 't', string.format('%.6f', left), 'u', string.format('%d', updated[i]))
  redis.call('PEXPIRE', KEYS[i], math.ceil((burst - left) * 1000 / rate) + 1000)
end
return {1, 0}
`;

type Client = RedisClient;

export interface RedisBucketStoreOptions {
  /** redis:// URL (ignored when `client` is given). */
  readonly url?: string;
  /** An already-connected client to share (the store then does not close it). */
  readonly client?: Client;
  /** Prepended to every key, e.g. `passkey:rl:` (tests use one per run). */
  readonly keyPrefix?: string;
}

export class RedisBucketStore implements BucketStore {
  readonly #client: Client;
  readonly #owned: boolean;
  readonly #prefix: string;

  private constructor(client: Client, owned: boolean, prefix: string) {
    this.#client = client;
    this.#owned = owned;
    this.#prefix = prefix;
  }

  /** Connects (unless given a client). Rejects with StoreUnavailableError when Redis cannot be reached. */
  static async open(options: RedisBucketStoreOptions): Promise<RedisBucketStore> {
    const prefix = options.keyPrefix ?? 'passkey:rl:';
    if (options.client) return new RedisBucketStore(options.client, false, prefix);
    let started = false;
    // At start, give up after a few tries (the caller reports it); once running, retry forever so that a
    // Redis restart heals by itself. Meanwhile calls fail fast (no offline queue) instead of hanging.
    const reconnectStrategy = (retries: number, cause: Error): number | Error =>
      started ? Math.min(retries * 100, 2000) : retries >= 2 ? cause : 100;
    const client = newRedisClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, reconnectStrategy },
    });
    // Without a listener an 'error' event would crash the process; failures surface through the calls.
    client.on('error', () => {});
    try {
      await client.connect();
      started = true;
    } catch (error) {
      if (client.isOpen) client.destroy(); // stop a reconnect loop, which would keep the process alive
      throw new StoreUnavailableError('rate-limit store (Redis) unreachable', { cause: error });
    }
    return new RedisBucketStore(client, true, prefix);
  }

  async consume(buckets: readonly BucketRequest[], now: number): Promise<BucketDecision> {
    if (buckets.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    const args = [String(Math.floor(now))];
    for (const { rule } of buckets) args.push(String(rule.burst), String(rule.perSecond));
    let reply: unknown;
    try {
      reply = await this.#client.eval(CONSUME_SCRIPT, {
        keys: buckets.map((b) => this.#prefix + b.key),
        arguments: args,
      });
    } catch (error) {
      throw new StoreUnavailableError('rate-limit store (Redis) failed', { cause: error });
    }
    const [allowed, wait] = reply as [number, number];
    return allowed === 1
      ? { allowed: true, retryAfterSeconds: 0 }
      : { allowed: false, retryAfterSeconds: retryAfterSeconds(Number(wait)) };
  }

  async ping(): Promise<void> {
    try {
      await this.#client.ping();
    } catch (error) {
      throw new StoreUnavailableError('rate-limit store (Redis) unreachable', { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.#owned && this.#client.isOpen) await this.#client.close();
  }
}
