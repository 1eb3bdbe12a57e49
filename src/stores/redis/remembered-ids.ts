// The local variant's remembered credential ids on Redis, for the Redis challenge store. Every key carries
// the hash tag {local}, so all of them sit in one slot and one Lua script (atomic) can forget another
// user's entry when a bound is reached; the scripts also name keys they read from an entry (a user's list,
// an application's order), which Redis Cluster accepts within one slot. An entry is (application, user,
// credential id): another user's registration of the same id is an entry of its own (docs/decisions.md
// "Local variant"). Layout under the deployment's prefix:
//   {local}:entries   hash  "<client>:<user handle>:<credential id>" →
//                           "<user key>\n<expiresAt>\n<transports JSON>\n<order key>"
//   {local}:order:<client>  zset  entry → seq: the application's entries in the order they were remembered
//                           (its bound forgets the oldest first)
//   {local}:expiry    zset  entry → expiresAt
//   {local}:seq       the counter of seq
//   {local}:user:<client>:<user handle>   zset  entry → seq: that user's entries
// Entries remembered by builds before issue 23 ("<client>:<credential id>", three fields, in the one
// {local}:order of all applications) are still listed, forgotten and expire; they count towards no bound.

import { LOCAL_CREDENTIAL_LIMITS, type LocalCredentialLimits, type LocalCredentialRecord } from '../types.js';

/** Sends one command (bounded, 503 while Redis is unreachable): the challenge store's own sender. */
export type RedisRun = (what: string, args: string[]) => Promise<unknown>;

// KEYS[1] entries, KEYS[2] the order of entries from before issue 23, KEYS[3] expiry.
const FORGET = `
local function fields(value)
  local out = {}
  for part in string.gmatch(value, '[^\\n]+') do out[#out + 1] = part end
  return out
end
local function forget(entry)
  local value = redis.call('HGET', KEYS[1], entry)
  if not value then return end
  local f = fields(value)
  redis.call('ZREM', f[1], entry)
  redis.call('ZREM', f[4] or KEYS[2], entry)
  redis.call('HDEL', KEYS[1], entry)
  redis.call('ZREM', KEYS[3], entry)
end
`;

// KEYS: entries, old order, expiry, seq, user, application order. ARGV: entry, expiresAt, transports JSON,
// now, per user, total (per application), the same credential's entry name from before issue 23.
const REMEMBER_SCRIPT = `${FORGET}
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])) do forget(entry) end
forget(ARGV[1])
local old = redis.call('HGET', KEYS[1], ARGV[7])
if old and fields(old)[1] == KEYS[5] then forget(ARGV[7]) end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], ARGV[1], KEYS[5] .. '\\n' .. ARGV[2] .. '\\n' .. ARGV[3] .. '\\n' .. KEYS[6])
redis.call('ZADD', KEYS[6], seq, ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
local excess = redis.call('ZCARD', KEYS[5]) - tonumber(ARGV[5])
if excess > 0 then for _, entry in ipairs(redis.call('ZRANGE', KEYS[5], 0, excess - 1)) do forget(entry) end end
excess = redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[6])
if excess > 0 then for _, entry in ipairs(redis.call('ZRANGE', KEYS[6], 0, excess - 1)) do forget(entry) end end
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
    const client = encodeURIComponent(record.clientId);
    const keys = [
      `${this.#base}entries`,
      `${this.#base}order`,
      `${this.#base}expiry`,
      `${this.#base}seq`,
      this.#userKey(record.clientId, record.userHandle),
      `${this.#base}order:${client}`,
    ];
    const credential = encodeURIComponent(record.credentialId);
    const entry = `${client}:${encodeURIComponent(record.userHandle)}:${credential}`;
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
      `${client}:${credential}`,
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
