// The local variant's remembered credential ids on Redis, for the Redis challenge store. Every key carries
// the hash tag {local}, so all of them sit in one slot and one Lua script (atomic) can forget another
// user's entry when the total bound is reached; the scripts also name keys they read from an entry (a
// user's list), which Redis Cluster accepts within one slot. Layout under the deployment's prefix:
//   {local}:entries   hash  "<client>:<credential id>" → "<user key>\n<expiresAt>\n<transports JSON>"
//   {local}:order     zset  entry → seq (the order entries were remembered in: the oldest go first)
//   {local}:expiry    zset  entry → expiresAt
//   {local}:seq       the counter of seq
//   {local}:user:<client>:<user handle>   zset  entry → seq: that user's entries

import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

/** Sends one command (bounded, 503 while Redis is unreachable): the challenge store's own sender. */
export type RedisRun = (what: string, args: string[]) => Promise<unknown>;

const FORGET = `
local function forget(entry)
  local value = redis.call('HGET', KEYS[1], entry)
  if not value then return end
  redis.call('ZREM', string.sub(value, 1, string.find(value, '\\n', 1, true) - 1), entry)
  redis.call('HDEL', KEYS[1], entry)
  redis.call('ZREM', KEYS[2], entry)
  redis.call('ZREM', KEYS[3], entry)
end
`;

// KEYS: entries, order, expiry, seq, user. ARGV: entry, expiresAt, transports JSON, now, per user, total.
const REMEMBER_SCRIPT = `${FORGET}
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])) do forget(entry) end
forget(ARGV[1])
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], ARGV[1], KEYS[5] .. '\\n' .. ARGV[2] .. '\\n' .. ARGV[3])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
local excess = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[5])
if excess > 0 then for _, entry in ipairs(redis.call('ZRANGE', KEYS[5], 0, excess - 1)) do forget(entry) end end
excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[6])
if excess > 0 then for _, entry in ipairs(redis.call('ZRANGE', KEYS[2], 0, excess - 1)) do forget(entry) end end
return 1
`;

// KEYS: entries, user. Answers entry, value, entry, value, … oldest first.
const LIST_SCRIPT = `
local out = {}
for _, entry in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local value = redis.call('HGET', KEYS[1], entry)
  if value then out[#out + 1] = entry; out[#out + 1] = value end
end
return out
`;

export class RedisRememberedIds {
  readonly #run: RedisRun;
  readonly #base: string;
  readonly #limits: LocalCredentialLimits;

  constructor(run: RedisRun, prefix: string, limits: Partial<LocalCredentialLimits> = {}) {
    this.#run = run;
    this.#base = `${prefix}{local}:`;
    this.#limits = {
      perUser: limits.perUser ?? LOCAL_CREDENTIAL_LIMITS.perUser,
      total: limits.total ?? LOCAL_CREDENTIAL_LIMITS.total,
    };
  }

  async remember(record: LocalCredentialRecord, now: number): Promise<void> {
    const keys = [
      `${this.#base}entries`,
      `${this.#base}order`,
      `${this.#base}expiry`,
      `${this.#base}seq`,
      this.#userKey(record.clientId, record.userHandle),
    ];
    const entry = `${encodeURIComponent(record.clientId)}:${encodeURIComponent(record.credentialId)}`;
    await this.#run('local credential remember', [
      'EVAL',
      REMEMBER_SCRIPT,
      String(keys.length),
      ...keys,
      entry,
      String(record.expiresAt),
      JSON.stringify(record.transports),
      String(now),
      String(this.#limits.perUser),
      String(this.#limits.total),
    ]);
  }

  async list(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]> {
    const reply = (await this.#run('local credential list', [
      'EVAL',
      LIST_SCRIPT,
      '2',
      `${this.#base}entries`,
      this.#userKey(clientId, userHandle),
    ])) as string[];
    const out: LocalCredentialRecord[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const [, expiresAt, transports] = reply[i + 1]!.split('\n') as [string, string, string];
      if (Number(expiresAt) < now) continue;
      const credentialId = decodeURIComponent(reply[i]!.slice(reply[i]!.lastIndexOf(':') + 1));
      out.push({
        clientId,
        userHandle,
        credentialId,
        transports: JSON.parse(transports) as string[],
        expiresAt: Number(expiresAt),
      });
    }
    return out;
  }

  #userKey(clientId: string, userHandle: string): string {
    return `${this.#base}user:${encodeURIComponent(clientId)}:${encodeURIComponent(userHandle)}`;
  }
}
