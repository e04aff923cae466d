// The Lua side of RedisStore. Every script takes the same three keys of one
// session (meta hash, window list, outcomes hash), which share one hash tag,
// so each runs on a single Cluster slot. Window entries are JSON written by
// the client; Lua never decodes them: it stamps `step` and `at` by string
// concatenation and finds a call by the exact `{"id":<json>,` prefix.

/** A Lua script kept as a named source, with the SHA1 that EVALSHA sends (a test checks it). */
export interface RedisScript {
  /** Name of the ioredis command the script is defined as. */
  readonly name: string;
  readonly numberOfKeys: number;
  readonly lua: string;
  /** SHA1 of `lua`, written out so that an edited source without a new hash fails the test. */
  readonly sha1: string;
}

// Helpers every script starts with. KEYS: 1 meta, 2 window, 3 outcomes.
const PRELUDE = `
local function refresh(ttl)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
end
local function clock()
  local t = redis.call('TIME')
  return t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end
local function find(entries, prefix)
  for i = #entries, 1, -1 do
    if string.sub(entries[i], 1, #prefix) == prefix then return i end
  end
  return 0
end
local function reply(now, entries, upto, duplicate)
  local m = redis.call('HMGET', KEYS[1], 'sid', 'circuit', 'run', 'asOf', 'total', 'runStart', 'inTok', 'outTok', 'cost')
  local window = {}
  for i = 1, upto do window[i] = entries[i] end
  local outcomes = {}
  local flat = redis.call('HGETALL', KEYS[3])
  for i = 1, #flat, 2 do outcomes[flat[i]] = flat[i + 1] end
  return cjson.encode({ now = now, duplicate = duplicate, window = window, outcomes = outcomes,
    sid = m[1], circuit = m[2], run = m[3], asOf = m[4], total = m[5], runStart = m[6],
    inTok = m[7], outTok = m[8], cost = m[9] })
end
`;

// ARGV: sid (JSON), id prefix, entry body, run, maxEntries, ttl ms, input tokens, output tokens, cost micros.
const RECORD = `
local sid, prefix, body, run = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local maxEntries, ttl = tonumber(ARGV[5]), ARGV[6]
local now = clock()
local owner = redis.call('HGET', KEYS[1], 'sid')
if owner and owner ~= sid then
  return redis.error_reply('ERR breaker: two session ids share one hash tag')
end
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local found = find(entries, prefix)
if found > 0 then
  refresh(ttl)
  return reply(now, entries, found, true)
end
local state = redis.call('HMGET', KEYS[1], 'run', 'total')
local total = tonumber(state[2]) or 0
if state[1] ~= run then
  redis.call('HSET', KEYS[1], 'sid', sid, 'run', run, 'asOf', total, 'runStart', total + 1)
  redis.call('HDEL', KEYS[1], 'circuit')
end
total = redis.call('HINCRBY', KEYS[1], 'total', 1)
local entry = prefix .. '"step":' .. total .. ',"at":' .. now .. ',' .. body
redis.call('RPUSH', KEYS[2], entry)
entries[#entries + 1] = entry
if ARGV[7] ~= '0' then redis.call('HINCRBY', KEYS[1], 'inTok', ARGV[7]) end
if ARGV[8] ~= '0' then redis.call('HINCRBY', KEYS[1], 'outTok', ARGV[8]) end
if ARGV[9] ~= '0' then redis.call('HINCRBY', KEYS[1], 'cost', ARGV[9]) end
local drop = #entries - maxEntries
if drop > 0 then
  redis.call('LTRIM', KEYS[2], drop, -1)
  -- Steps in the window are consecutive and end at total.
  local first = total - #entries + 1
  for step = first, first + drop - 1 do redis.call('HDEL', KEYS[3], step) end
  local kept = {}
  for i = drop + 1, #entries do kept[#kept + 1] = entries[i] end
  entries = kept
end
refresh(ttl)
return reply(now, entries, #entries, false)
`;

// ARGV: id prefix, outcome JSON, ttl ms.
const COMPLETE = `
local prefix, outcome, ttl = ARGV[1], ARGV[2], ARGV[3]
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local found = find(entries, prefix)
if found == 0 then return 0 end
local step = string.match(entries[found], '^"step":(%d+)', #prefix + 1)
redis.call('HSET', KEYS[3], step, outcome)
refresh(ttl)
return 1
`;

// ARGV: run, asOf, circuit JSON, ttl ms.
const TRANSITION = `
local run, asOf, circuit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local state = redis.call('HMGET', KEYS[1], 'run', 'asOf')
if state[1] ~= run or (tonumber(state[2]) or 0) > asOf then return 0 end
redis.call('HSET', KEYS[1], 'circuit', circuit, 'asOf', ARGV[2])
refresh(ttl)
return 1
`;

const SNAPSHOT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
return reply(clock(), entries, #entries, false)
`;

function script(name: string, body: string, sha1: string): RedisScript {
  return { name, numberOfKeys: 3, lua: PRELUDE + body, sha1 };
}

/**
 * The scripts, one per store operation that touches several keys. Each is
 * atomic on the server; `record` is the whole hot path of a check.
 */
export const REDIS_SCRIPTS = {
  /** Idempotent append: run rollover, step = INCR, at = server TIME, usage, trim, TTL; replies with the window. */
  record: script("breakerRecord", RECORD, "751cb14ad80a61377d64ab1b0fb8ac06f2c82943"),
  /** Attach an outcome to the call with this id, if it is still in the window. */
  complete: script("breakerComplete", COMPLETE, "f7212a33ebc81f9e2a169548e76f9fe3592ca14b"),
  /** Store a circuit unless the stored one belongs to another run or a later step. */
  transition: script("breakerTransition", TRANSITION, "f617c1a54b4b34665006eef913b375adc33cc932"),
  /** The whole session in one consistent read. */
  snapshot: script("breakerSnapshot", SNAPSHOT, "7d51dc2054717f170f9afc0b2dd585b4c5d0590a"),
} as const satisfies Record<string, RedisScript>;
