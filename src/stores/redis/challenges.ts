// ChallengeStore on Redis (`challenges: "redis://…"`), shared by every instance of a deployment.
// A pending ceremony is one key whose TTL is the ceremony's remaining lifetime. `take` is one Lua script,
// which Redis runs atomically: it reads and deletes the ceremony and leaves a used-marker with the same
// remaining TTL, so of any number of concurrent takes exactly one gets the record, and the others (and
// later replays until expiry) answer "used".
// Every command is bounded (connect and command timeouts, no offline queue): while Redis is unreachable
// calls fail at once with StoreUnavailableError (503), and the client reconnects in the background.

import { isReplyError, newRedisClient, type RedisClient } from './client.js';
import type {
  CeremonyRecord,
  ChallengeStore,
  LocalCredentialLimits,
  LocalCredentialRecord,
  TakeResult,
} from '../types.js';
import { RedisRememberedIds } from './remembered-ids.js';
import { StoreUnavailableError } from '../../errors/catalogue.js';

export interface RedisOptions {
  /** Prepended to every key, so several deployments (or test runs) can share one Redis. Default `passkey:`. */
  readonly prefix?: string;
  /** Clock for a ceremony's TTL at `put` (the composition root passes `runtime.now`). Default Date.now. */
  readonly clock?: () => number;
  /** Bound on connecting, in ms (at start and on every reconnect). Default 3000. */
  readonly connectTimeoutMs?: number;
  /** Bound on one command, in ms. Default 3000. */
  readonly commandTimeoutMs?: number;
  /** Bounds of the local variant's remembered credential ids (default LOCAL_CREDENTIAL_LIMITS). */
  readonly localLimits?: Partial<LocalCredentialLimits>;
}

type Client = RedisClient;

// KEYS[1] pending key, KEYS[2] used-marker key. The pending value is "<expiresAt>\n<record JSON>"; the
// marker keeps "<expiresAt>" so that `take` can answer "missing" once the ceremony would have expired.
const TAKE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 1 then ttl = 1 end
  redis.call('DEL', KEYS[1])
  local cut = string.find(value, '\\n', 1, true)
  redis.call('SET', KEYS[2], string.sub(value, 1, cut - 1), 'PX', ttl)
  return {'taken', value}
end
local marker = redis.call('GET', KEYS[2])
if marker then return {'used', marker} end
return {'missing'}
`;

/** Redis could not be reached or did not answer in time: the request gets 503, the service stays up. */
function unavailable(what: string, error: unknown): StoreUnavailableError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`Redis unavailable during ${what}: ${reason}`, { cause: error });
}

export class RedisChallengeStore implements ChallengeStore {
  readonly #client: Client;
  readonly #prefix: string;
  readonly #clock: () => number;
  readonly #commandTimeoutMs: number;
  #scriptSha: string | undefined;
  #closing: Promise<void> | undefined;
  readonly #local: RedisRememberedIds;

  constructor(client: Client, options: RedisOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'passkey:';
    this.#clock = options.clock ?? Date.now;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    this.#local = new RedisRememberedIds((what, args) => this.#run(what, args), this.#prefix, options.localLimits);
  }

  async put(record: CeremonyRecord): Promise<void> {
    const ttl = Math.max(1, Math.ceil(record.expiresAt - this.#clock()));
    const [pending] = this.#keys(record.clientId, record.challenge);
    await this.#run('challenge put', [
      'SET',
      pending,
      `${record.expiresAt}\n${JSON.stringify(record)}`,
      'PX',
      String(ttl),
    ]);
  }

  async take(clientId: string, challenge: string, now: number): Promise<TakeResult> {
    const reply = await this.#evalTake(this.#keys(clientId, challenge));
    const [state, value] = reply as [string, string | undefined];
    if (state === 'taken' && value !== undefined) {
      const cut = value.indexOf('\n');
      if (Number(value.slice(0, cut)) < now) return { state: 'missing' };
      return { state: 'taken', record: JSON.parse(value.slice(cut + 1)) as CeremonyRecord };
    }
    if (state === 'used' && value !== undefined && Number(value) >= now) return { state: 'used' };
    return { state: 'missing' };
  }

  rememberLocalCredential(record: LocalCredentialRecord, now: number): Promise<void> {
    return this.#local.remember(record, now);
  }

  listLocalCredentials(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    return this.#local.list(clientId, userHandle, now);
  }

  async ping(): Promise<void> {
    await this.#run('ping', ['PING']);
  }

  /** Waits (bounded by the command timeout) for replies still due, then drops the connection regardless. */
  async close(): Promise<void> {
    this.#closing ??= this.#closeOnce();
    await this.#closing;
  }

  async #closeOnce(): Promise<void> {
    if (this.#client.isOpen) {
      let timer: NodeJS.Timeout | undefined;
      const graceful = this.#client.close().catch(() => undefined);
      const bounded = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#commandTimeoutMs);
      });
      await Promise.race([graceful, bounded]);
      clearTimeout(timer);
    }
    try {
      this.#client.destroy();
    } catch {
      // already closed: nothing left to drop
    }
  }

  #keys(clientId: string, challenge: string): [string, string] {
    // The hash tag {…} keeps both keys of a ceremony in one slot, as a script on Redis Cluster requires.
    const id = `${this.#prefix}{${encodeURIComponent(clientId)}:${encodeURIComponent(challenge)}}`;
    return [`${id}:pending`, `${id}:used`];
  }

  /** EVALSHA (the script is sent once per connection life), falling back to EVAL after a Redis restart. */
  async #evalTake(keys: [string, string]): Promise<unknown> {
    if (this.#scriptSha !== undefined) {
      try {
        return await this.#run('challenge take', ['EVALSHA', this.#scriptSha, '2', ...keys]);
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      }
    }
    this.#scriptSha = String(await this.#run('challenge take', ['SCRIPT', 'LOAD', TAKE_SCRIPT]));
    return this.#run('challenge take', ['EVALSHA', this.#scriptSha, '2', ...keys]);
  }

  /**
   * One command, bounded end to end. (The client's own command timeout stops only while a command waits to
   * be written; a Redis that accepted the bytes and went silent would hold the request forever.) A late
   * reply still lands on the abandoned promise, so the connection's reply order stays intact.
   */
  async #run(what: string, args: string[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no reply within ${this.#commandTimeoutMs} ms`)),
        this.#commandTimeoutMs,
      );
    });
    const sent = this.#client.sendCommand(args);
    sent.catch(() => undefined); // may fail after the deadline already answered
    try {
      return await Promise.race([sent, deadline]);
    } catch (error) {
      if (isReplyError(error)) throw error;
      throw unavailable(what, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Opens a client and waits (bounded) for the first connection; refuses to start if Redis is unreachable. */
export async function openRedisChallengeStore(
  givenUrl: string,
  givenOptions: RedisOptions = {},
): Promise<ChallengeStore> {
  const { url, options } = splitPrefix(givenUrl, givenOptions);
  const connectTimeout = options.connectTimeoutMs ?? 3000;
  const client: Client = newRedisClient({
    url,
    // Fail calls at once while disconnected instead of queueing them until Redis returns.
    disableOfflineQueue: true,
    commandOptions: { timeout: options.commandTimeoutMs ?? 3000 },
    socket: {
      connectTimeout,
      keepAlive: true,
      // Keep trying forever (a backend that returns must be used again), at most every 2 s.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) + Math.floor(Math.random() * 100),
    },
  });
  // Connection errors are reported here on every failed reconnect; without a listener Node would crash.
  // The latest one explains a failed start.
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  const connecting = client.connect();
  connecting.catch(() => undefined); // a late failure after the timeout below must not go unhandled
  try {
    await Promise.race([
      connecting,
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          const cause = lastError instanceof Error ? ` (${lastError.message})` : '';
          reject(new Error(`no connection within ${connectTimeout} ms${cause}`));
        }, connectTimeout);
      }),
    ]);
  } catch (error) {
    client.destroy();
    throw unavailable(`start (${redactUrl(url)})`, error);
  } finally {
    clearTimeout(timer);
  }
  return new RedisChallengeStore(client, options);
}

/**
 * Takes our own `prefix` parameter out of a redis:// URL (`redis://host:6379?prefix=shop:`), so that a
 * deployment chooses its key prefix in the one `challenges` setting. An explicit `options.prefix` wins.
 */
function splitPrefix(url: string, options: RedisOptions): { url: string; options: RedisOptions } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, options };
  }
  const fromUrl = parsed.searchParams.get('prefix');
  if (fromUrl === null) return { url, options };
  parsed.searchParams.delete('prefix');
  return { url: parsed.toString(), options: { ...options, prefix: options.prefix ?? fromUrl } };
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis URL';
  }
}
