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
//   11     epoch: changes whenever the session's keys are created anew
//   12     first: the step of the oldest call in the window
//   13     delta: 1 when the entries below are only those after the caller's
//          knownLast (it holds the older ones), 0 when they start at `first`
//   14     n: number of window entries that follow
//   15..   the n window entries (JSON), oldest first
//   then   the outcomes hash as step, outcome JSON pairs (HGETALL order)
// A Lua nil would end the array early, so unset fields are always false.
// The clock is a Lua number of whole ms below 1e14, so concatenating it into
// an entry (Lua prints numbers with %.14g) writes every digit.
const PRELUDE = `
local CIRCUIT, RUN, AS_OF, TOTAL, RUN_START, IN_TOK, OUT_TOK, COST, SID, EPOCH = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local function readMeta()
  return redis.call('HMGET', KEYS[1], 'circuit', 'run', 'asOf', 'total', 'runStart', 'inTok', 'outTok', 'cost', 'sid', 'epoch')
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
local function reply(now, duplicate, m, first, delta, entries, from, to)
  local out = { now, duplicate, m[CIRCUIT], m[RUN], m[AS_OF], m[TOTAL], m[RUN_START], m[IN_TOK], m[OUT_TOK], m[COST],
    m[EPOCH] or false, first, delta, math.max(0, to - from + 1) }
  local k = #out
  for i = from, to do
    k = k + 1
    out[k] = entries[i]
  end
  local flat = redis.call('HGETALL', KEYS[3])
  for i = 1, #flat do out[k + i] = flat[i] end
  return out
end
`;

// ARGV: sid (JSON), id prefix, entry body, run, maxEntries, ttl ms, input
// tokens, output tokens, cost micros, the caller's epoch and knownLast.
// A caller that holds the window up to step knownLast of this epoch (and does
// not hold this call id) gets, and the script reads, only the entries after
// it: the common case costs a short LRANGE and a short reply. The meta hash
// is read once; the reply carries the values this script wrote.
const RECORD = `
local sid, prefix, body, run = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local maxEntries, ttl = tonumber(ARGV[5]), ARGV[6]
local knownEpoch, knownLast = ARGV[10], tonumber(ARGV[11]) or 0
local now = clock()
local m = readMeta()
if m[SID] and m[SID] ~= sid then
  return redis.error_reply('ERR breaker: two session ids share one hash tag')
end
if not m[EPOCH] then
  local t = redis.call('TIME')
  m[EPOCH] = t[1] .. '.' .. t[2]
  redis.call('HSET', KEYS[1], 'epoch', m[EPOCH])
end
local total = tonumber(m[TOTAL]) or 0
local len = redis.call('LLEN', KEYS[2])
local first = total - len + 1
local delta = 0
local entries
if m[EPOCH] == knownEpoch and knownLast >= first - 1 and knownLast <= total then
  delta = 1
  entries = redis.call('LRANGE', KEYS[2], knownLast - first + 1, -1)
else
  entries = redis.call('LRANGE', KEYS[2], 0, -1)
end
local found = find(entries, prefix)
if found > 0 then
  -- A repeated id: answer with the whole window up to it (rare; no delta).
  if delta == 1 then
    entries = redis.call('LRANGE', KEYS[2], 0, -1)
    found = find(entries, prefix)
  end
  refresh(ttl)
  return reply(now, 1, m, first, 0, entries, 1, found)
end
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
local drop = len + 1 - maxEntries
if drop > 0 then
  redis.call('LTRIM', KEYS[2], drop, -1)
  -- Steps in the window are consecutive and end at total.
  for step = first, first + drop - 1 do redis.call('HDEL', KEYS[3], step) end
  first = first + drop
end
refresh(ttl)
-- Entries older than the new first step are not sent (the caller drops them too).
local from = 1
if delta == 0 and drop > 0 then from = drop + 1 end
return reply(now, 0, m, first, delta, entries, from, #entries)
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
local m = readMeta()
return reply(clock(), 0, m, (tonumber(m[TOTAL]) or 0) - #entries + 1, 0, entries, 1, #entries)
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
  record: script("breakerRecord", RECORD, "de88d0c17ad05fe2647af2b2d0f20d052b562834"),
  /** Attach an outcome to the call with this id, if it is still in the window. */
  complete: script("breakerComplete", COMPLETE, "a41ceb793590a8683016d67041d1f465b8bcb45d"),
  /** Store a circuit unless the stored one belongs to another run or a later step. */
  transition: script("breakerTransition", TRANSITION, "21f1195abbea87b1714156ff6ba615668da36538"),
  /** The whole session in one consistent read. */
  snapshot: script("breakerSnapshot", SNAPSHOT, "626e9ed03c704f8b09324078e2d4300b2a7099a0"),
} as const satisfies Record<string, RedisScript>;
