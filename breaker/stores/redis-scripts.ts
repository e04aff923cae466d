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
//
// Reply of record and snapshot: one flat RESP array (never a JSON document,
// so entries are not escaped twice), decoded by redis-codec.ts:
//   1      now: server clock, epoch ms (integer)
//   2      duplicate: 1 or 0
//   3..10  meta fields circuit, run, asOf, total, runStart, inTok, outTok, cost,
//          each a string or integer, or nil when unset (HMGET's false)
//   11     n: number of window entries
//   12..   the n window entries (JSON), oldest first
//   then   the outcomes hash as step, outcome JSON pairs (HGETALL order)
// A Lua nil would end the array early, so unset fields are always false.
// The clock is a Lua number of whole ms below 1e14, so concatenating it into
// an entry (Lua prints numbers with %.14g) writes every digit.
const PRELUDE = `
local CIRCUIT, RUN, AS_OF, TOTAL, RUN_START, IN_TOK, OUT_TOK, COST, SID = 1, 2, 3, 4, 5, 6, 7, 8, 9
local function readMeta()
  return redis.call('HMGET', KEYS[1], 'circuit', 'run', 'asOf', 'total', 'runStart', 'inTok', 'outTok', 'cost', 'sid')
end
local function refresh(ttl)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
end
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function find(entries, prefix)
  local sub, n = string.sub, #prefix
  for i = #entries, 1, -1 do
    if sub(entries[i], 1, n) == prefix then return i end
  end
  return 0
end
local function reply(now, duplicate, m, entries, first, last)
  local out = { now, duplicate, m[CIRCUIT], m[RUN], m[AS_OF], m[TOTAL], m[RUN_START], m[IN_TOK], m[OUT_TOK], m[COST],
    last - first + 1 }
  local k = #out
  for i = first, last do
    k = k + 1
    out[k] = entries[i]
  end
  local flat = redis.call('HGETALL', KEYS[3])
  for i = 1, #flat do out[k + i] = flat[i] end
  return out
end
`;

// ARGV: sid (JSON), id prefix, entry body, run, maxEntries, ttl ms, input tokens, output tokens, cost micros.
// The meta hash is read once; the reply carries the values this script wrote
// (HINCRBY returns the new count) instead of reading them back.
const RECORD = `
local sid, prefix, body, run = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local maxEntries, ttl = tonumber(ARGV[5]), ARGV[6]
local now = clock()
local m = readMeta()
if m[SID] and m[SID] ~= sid then
  return redis.error_reply('ERR breaker: two session ids share one hash tag')
end
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local found = find(entries, prefix)
if found > 0 then
  refresh(ttl)
  return reply(now, 1, m, entries, 1, found)
end
local total = tonumber(m[TOTAL]) or 0
if m[RUN] ~= run then
  redis.call('HSET', KEYS[1], 'sid', sid, 'run', run, 'asOf', total, 'runStart', total + 1)
  redis.call('HDEL', KEYS[1], 'circuit')
  m[CIRCUIT], m[RUN], m[AS_OF], m[RUN_START] = false, run, total, total + 1
end
total = redis.call('HINCRBY', KEYS[1], 'total', 1)
m[TOTAL] = total
local entry = prefix .. '"step":' .. total .. ',"at":' .. now .. ',' .. body
redis.call('RPUSH', KEYS[2], entry)
entries[#entries + 1] = entry
if ARGV[7] ~= '0' then m[IN_TOK] = redis.call('HINCRBY', KEYS[1], 'inTok', ARGV[7]) end
if ARGV[8] ~= '0' then m[OUT_TOK] = redis.call('HINCRBY', KEYS[1], 'outTok', ARGV[8]) end
if ARGV[9] ~= '0' then m[COST] = redis.call('HINCRBY', KEYS[1], 'cost', ARGV[9]) end
local drop = #entries - maxEntries
if drop > 0 then
  redis.call('LTRIM', KEYS[2], drop, -1)
  -- Steps in the window are consecutive and end at total.
  local first = total - #entries + 1
  for step = first, first + drop - 1 do redis.call('HDEL', KEYS[3], step) end
else
  drop = 0
end
refresh(ttl)
return reply(now, 0, m, entries, drop + 1, #entries)
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
return reply(clock(), 0, readMeta(), entries, 1, #entries)
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
  record: script("breakerRecord", RECORD, "d9d054627712f200ad939fdc8d6aa83f3820760d"),
  /** Attach an outcome to the call with this id, if it is still in the window. */
  complete: script("breakerComplete", COMPLETE, "7873a0d95c0b6b819816e9ebf05c3c385dacc1d1"),
  /** Store a circuit unless the stored one belongs to another run or a later step. */
  transition: script("breakerTransition", TRANSITION, "b261ab3702238e5ce1f137a59f59fcb469b8e970"),
  /** The whole session in one consistent read. */
  snapshot: script("breakerSnapshot", SNAPSHOT, "f6284966b47f47c09ced0ed2c4152357788825d2"),
} as const satisfies Record<string, RedisScript>;
