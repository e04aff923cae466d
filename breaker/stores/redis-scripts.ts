// The Lua side of RedisStore. Every script takes the same three keys of one
// session (meta hash, window list, outcome log list), which share one hash
// tag, so each runs on a single Cluster slot. Window entries are JSON written
// by the client; Lua never decodes them: it stamps `step` and `at` by string
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

// Helpers every script starts with. KEYS: 1 meta, 2 window, 3 outcome log.
//
// The meta hash holds: sid (JSON of the raw id), epoch (new whenever the keys
// are created anew), circuit (JSON), run, asOf, decided (the circuit holds
// every verdict through this step), total (call counter), runStart, inTok,
// outTok, cost, done (outcome counter), max (the window size), exp (when
// every key of the session expires, epoch ms).
//
// The window list keeps consecutive calls ending at `total`: the last `max`
// (the window) and, before them, the ones an undecided step's window still
// needs (see keepFrom in store.ts), at most 2 * max in all.
//
// The outcome log is a list of "step,seq,<outcome JSON>" in the order the
// outcomes were applied (seq = total at that moment): reports of calls the
// list still holds, at most 2 * max.
//
// Reply of record and snapshot: one flat RESP array (never a JSON document,
// so entries are not escaped twice), decoded by redis-codec.ts:
//   1      now: server clock, epoch ms (integer)
//   2      epoch
//   3..11  circuit, run, asOf, total, runStart, decided, inTok, outTok, cost
//          (circuit, run and usage are nil when unset: Lua false)
//   12     max
//   13     first: the oldest step the list keeps after this call
//   14     from: the step of the first entry below
//   15     n: number of entries that follow (from .. the last before this
//          batch: a record never sends back the entries it appended)
//   16..   the n entries (JSON), oldest first
//   then   done; reportsFrom (the reports below are numbers reportsFrom+1 .. done);
//          m: number of reports; the m reports
//   then   (record) per call of the batch: its step, negative for a repeated id
// A Lua nil would end the array early, so unset fields are always false.
// The clock is a Lua number of whole ms below 1e14, so concatenating it into
// an entry (Lua prints numbers with %.14g) writes every digit.
const PRELUDE = `
local CIRCUIT, RUN, AS_OF, TOTAL, RUN_START, DECIDED, IN_TOK, OUT_TOK, COST, SID, EPOCH, DONE, MAX, EXP = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
local function readMeta()
  return redis.call('HMGET', KEYS[1], 'circuit', 'run', 'asOf', 'total', 'runStart', 'decided', 'inTok', 'outTok', 'cost', 'sid', 'epoch', 'done', 'max', 'exp')
end
local function refresh(ttl)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
end
-- Every key expires at meta.exp. A write moves that to now + ttl, but only
-- when it is more than a sixteenth of the TTL off (or forced, for a key just
-- created): three PEXPIREs a write would cost more than the write. Adds the
-- meta field to writes and returns the new expiry; expireAt applies it
-- once the keys exist (a missing key takes no TTL).
local function expiry(m, now, ttl, writes, force)
  local want = now + tonumber(ttl)
  if force or math.abs(want - (tonumber(m[EXP]) or 0)) * 16 > tonumber(ttl) then
    m[EXP] = want
    writes[#writes + 1] = 'exp'
    writes[#writes + 1] = want
    return want
  end
  return nil
end
local function expireAt(at)
  if at then for i = 1, #KEYS do redis.call('PEXPIREAT', KEYS[i], at) end end
end
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function find(entries, prefix, lo)
  local sub, n = string.sub, #prefix
  for i = #entries, lo, -1 do
    if sub(entries[i], 1, n) == prefix then return i end
  end
  return 0
end
local function push(key, items)
  for i = 1, #items, 1000 do redis.call('RPUSH', key, unpack(items, i, math.min(i + 999, #items))) end
end
local function append(out, items)
  local k = #out
  for i = 1, #items do out[k + i] = items[i] end
end
-- Claim: the client says the stored circuit (epoch, run, asOf) holds every verdict through a later step.
local function claimed(m, decided, total, epoch, run, asOf, through)
  through = tonumber(through) or 0
  if epoch == m[EPOCH] and run == m[RUN] and tonumber(asOf) == (tonumber(m[AS_OF]) or 0) and through > decided and through <= total then
    return through
  end
  return decided
end
-- The session's counters once the caller's claim (ARGV[a] .. ARGV[a + 3]) is applied:
-- total, the stored and the new decided mark, and the first step the list holds.
local function counters(m, a)
  local total = tonumber(m[TOTAL]) or 0
  local storedDecided = tonumber(m[DECIDED]) or 0
  local decided = claimed(m, storedDecided, total, ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
  return total, storedDecided, decided, total - redis.call('LLEN', KEYS[2]) + 1
end
-- The outcome reports after the client's knownDone, or all of them when it holds too little.
local function reportsSince(m, knownEpoch, knownDone, done)
  knownDone = tonumber(knownDone) or -1
  if knownEpoch == m[EPOCH] and knownDone == done then return done, {} end
  local llen = redis.call('LLEN', KEYS[3])
  if knownEpoch == m[EPOCH] and knownDone >= done - llen and knownDone <= done then
    return knownDone, redis.call('LRANGE', KEYS[3], knownDone - (done - llen), -1)
  end
  return done - llen, redis.call('LRANGE', KEYS[3], 0, -1)
end
local function header(now, m, asOf, total, runStart, decided, first, from, count)
  return { now, m[EPOCH], m[CIRCUIT] or false, m[RUN] or false, asOf, total, runStart, decided,
    m[IN_TOK] or false, m[OUT_TOK] or false, m[COST] or false, tonumber(m[MAX]) or 0, first, from, count }
end
`;

// ARGV: 1 sid (JSON), 2 maxEntries, 3 ttl ms, 4 knownEpoch, 5 knownLast,
// 6 knownDone, 7..10 claim (epoch, run, asOf, through), 11 n, then per call
// 6: id prefix, entry body, run, input tokens, output tokens, cost micros.
// A caller that holds the list up to step knownLast of this epoch (and does
// not hold any of the batch's ids) gets, and the script reads, only the
// entries after it; likewise for outcome reports after knownDone. On the
// common path (one worker per session at a time) that is nothing at all.
const RECORD = `
local sid, maxEntries, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local knownEpoch, knownLast = ARGV[4], tonumber(ARGV[5]) or -1
local n = tonumber(ARGV[11])
local now = clock()
local m = readMeta()
if m[SID] and m[SID] ~= sid then
  return redis.error_reply('ERR breaker: two session ids share one hash tag')
end
local writes = {}
if not m[EPOCH] then
  local t = redis.call('TIME')
  m[EPOCH] = t[1] .. '.' .. t[2]
  append(writes, { 'epoch', m[EPOCH], 'sid', sid })
end
local asOf = tonumber(m[AS_OF]) or 0
local runStart = tonumber(m[RUN_START]) or 1
local total, storedDecided, decided, first = counters(m, 7)
local len = total - first + 1
local from, entries
if m[EPOCH] == knownEpoch and knownLast >= first - 1 and knownLast <= total then
  from = knownLast + 1
  entries = knownLast < total and redis.call('LRANGE', KEYS[2], knownLast - first + 1, -1) or {}
else
  from = first
  entries = redis.call('LRANGE', KEYS[2], 0, -1)
end
-- The batch's own entries are not sent back: the caller has them.
local sent = #entries
local steps, pushed, rolled = {}, {}, false
for i = 0, n - 1 do
  local a = 12 + i * 6
  local prefix, run = ARGV[a], ARGV[a + 2]
  -- A repeated id counts only while it is in the window (the last maxEntries calls).
  local found = find(entries, prefix, math.max(1, total - maxEntries + 2 - from))
  if found > 0 then
    steps[i + 1] = -(from + found - 1)
  else
    if m[RUN] ~= run then
      m[RUN], m[CIRCUIT], asOf, runStart, decided, rolled = run, false, total, total + 1, total, true
    end
    total = total + 1
    local entry = prefix .. '"step":' .. total .. ',"at":' .. now .. ',' .. ARGV[a + 1]
    entries[#entries + 1] = entry
    pushed[#pushed + 1] = entry
    if ARGV[a + 3] ~= '0' then m[IN_TOK] = redis.call('HINCRBY', KEYS[1], 'inTok', ARGV[a + 3]) end
    if ARGV[a + 4] ~= '0' then m[OUT_TOK] = redis.call('HINCRBY', KEYS[1], 'outTok', ARGV[a + 4]) end
    if ARGV[a + 5] ~= '0' then m[COST] = redis.call('HINCRBY', KEYS[1], 'cost', ARGV[a + 5]) end
    steps[i + 1] = total
  end
end
if #pushed > 0 then
  push(KEYS[2], pushed)
  append(writes, { 'total', total })
end
if rolled then
  redis.call('HDEL', KEYS[1], 'circuit')
  append(writes, { 'run', m[RUN], 'asOf', asOf, 'runStart', runStart })
end
if decided ~= storedDecided then append(writes, { 'decided', decided }) end
if tonumber(m[MAX]) ~= maxEntries then
  m[MAX] = maxEntries
  append(writes, { 'max', maxEntries })
end
local at = expiry(m, now, ttl, writes, len == 0)
if #writes > 0 then redis.call('HSET', KEYS[1], unpack(writes)) end
expireAt(at)
local keep = math.max(total - 2 * maxEntries + 1, math.min(total - maxEntries + 1, decided - maxEntries + 2))
if keep > first then
  redis.call('LTRIM', KEYS[2], keep - first, -1)
  first = keep
end
local done = tonumber(m[DONE]) or 0
local reportsFrom, reports = reportsSince(m, knownEpoch, ARGV[6], done)
local out = header(now, m, asOf, total, runStart, decided, first, from, sent)
for i = 1, sent do out[15 + i] = entries[i] end
append(out, { done, reportsFrom, #reports })
append(out, reports)
append(out, steps)
return out
`;

// ARGV: 1 ttl ms, 2 maxEntries, 3 log cap, 4 knownEpoch, 5 knownDone,
// 6..9 claim (epoch, run, asOf, through), 10 n, then per completion 3: id
// prefix, the step the client believes the call has (0 when unknown), and
// the outcome JSON. Reply: done, reportsFrom, m, the m reports after the
// client's knownDone (none when it holds another epoch or too little), then
// 1 or 0 per completion.
const COMPLETE = `
local maxEntries, n = tonumber(ARGV[2]), tonumber(ARGV[10])
local m = readMeta()
local results = {}
if not m[EPOCH] then
  for i = 1, n do results[i] = 0 end
  local out = { 0, -1, 0 }
  append(out, results)
  return out
end
local done = tonumber(m[DONE]) or 0
local total, storedDecided, decided, first = counters(m, 6)
local visibleFrom = math.max(first, total - maxEntries + 1)
local entries
local added = {}
for i = 0, n - 1 do
  local a = 11 + i * 3
  local prefix, hint = ARGV[a], tonumber(ARGV[a + 1]) or 0
  local step = 0
  if hint >= visibleFrom and hint <= total then
    local entry = redis.call('LINDEX', KEYS[2], hint - first)
    if entry and string.sub(entry, 1, #prefix) == prefix then step = hint end
  end
  if step == 0 then
    entries = entries or redis.call('LRANGE', KEYS[2], visibleFrom - first, -1)
    local found = find(entries, prefix, 1)
    if found > 0 then step = visibleFrom + found - 1 end
  end
  if step > 0 then
    added[#added + 1] = step .. ',' .. total .. ',' .. ARGV[a + 2]
    results[i + 1] = 1
  else
    results[i + 1] = 0
  end
end
local writes = {}
if #added > 0 then
  push(KEYS[3], added)
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[3]), -1)
  -- Reports of calls the list no longer holds are of no use: drop them from the head (the log is
  -- nearly in step order, so a few at most; the count cap above bounds whatever is left).
  for _ = 1, #added + 2 do
    local head = redis.call('LINDEX', KEYS[3], 0)
    if not head or tonumber(string.match(head, '^(%d+),')) >= first then break end
    redis.call('LPOP', KEYS[3])
  end
  append(writes, { 'done', done + #added })
end
if decided ~= storedDecided then append(writes, { 'decided', decided }) end
if #writes > 0 then
  -- The first outcome creates the log: it needs the session's expiry too.
  local at = expiry(m, clock(), ARGV[1], writes, #added > 0 and done == 0)
  redis.call('HSET', KEYS[1], unpack(writes))
  expireAt(at)
end
done = done + #added
local reportsFrom, reports = -1, {}
if ARGV[4] == m[EPOCH] then
  reportsFrom, reports = reportsSince(m, ARGV[4], ARGV[5], done)
  if reportsFrom ~= tonumber(ARGV[5]) then reportsFrom, reports = -1, {} end
end
local out = { done, reportsFrom, #reports }
append(out, reports)
append(out, results)
return out
`;

// ARGV: run, asOf, circuit JSON, ttl ms, through, epoch ("" for any).
const TRANSITION = `
local run, asOf, through, epoch = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[5]), ARGV[6]
local state = redis.call('HMGET', KEYS[1], 'run', 'asOf', 'decided', 'total', 'epoch')
if state[1] ~= run or (epoch ~= '' and state[5] ~= epoch) then return 0 end
if (tonumber(state[2]) or 0) > asOf or (tonumber(state[3]) or 0) > through or (tonumber(state[4]) or 0) < through then return 0 end
redis.call('HSET', KEYS[1], 'circuit', ARGV[3], 'asOf', asOf, 'decided', through)
refresh(ARGV[4])
return 1
`;

const SNAPSHOT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local m = readMeta()
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
local total = tonumber(m[TOTAL]) or 0
local first = total - #entries + 1
local done = tonumber(m[DONE]) or 0
local reportsFrom, reports = reportsSince(m, '', -1, done)
local out = header(clock(), m, tonumber(m[AS_OF]) or 0, total, tonumber(m[RUN_START]) or 1, tonumber(m[DECIDED]) or 0, first, first, #entries)
append(out, entries)
append(out, { done, reportsFrom, #reports })
append(out, reports)
return out
`;

function script(name: string, body: string, sha1: string): RedisScript {
  return { name, numberOfKeys: 3, lua: PRELUDE + body, sha1 };
}

/**
 * The scripts, one per store operation that touches several keys. Each is
 * atomic on the server; `record` is the whole hot path of a check.
 */
export const REDIS_SCRIPTS = {
  /** Idempotent batch append: claim, run rollover, steps, server TIME, usage, trim, TTL; replies with what the caller lacks. */
  record: script("breakerRecord", RECORD, "ccfc6e456fd0e547a786a6cb621c120fc0092e0a"),
  /** Attach outcomes to the calls with these ids, if still in the window, and log them. */
  complete: script("breakerComplete", COMPLETE, "e925e141ddebacd611f54fba148830eb7902938d"),
  /** Store a circuit unless the stored one belongs to another run or epoch or covers a later step. */
  transition: script("breakerTransition", TRANSITION, "b845d2a8d2c0955f3848a496d71661c121ac87bb"),
  /** The whole session in one consistent read. */
  snapshot: script("breakerSnapshot", SNAPSHOT, "dfb92ae5f3f98adafe4935d049e13026dc7873da"),
} as const satisfies Record<string, RedisScript>;
