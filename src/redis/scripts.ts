/**
 * The Lua scripts behind `createRedisStore`. Each runs atomically on the server, is timed by the
 * server's clock (`TIME`: processes' own clocks cannot be compared) and leaves every key it
 * writes with a time to live. The breaker script mirrors `circuitStep` in src/engine/circuit.ts.
 */

/** Milliseconds on the server's clock. */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS[1] the breaker; ARGV: the command (JSON), the limits (JSON), the TTL in ms.
 * Returns `{ from, to, now }` as JSON; writes only when the state changes. A stored value that is
 * not a sound breaker state (`asState` in src/engine/circuitState.ts) is read as closed, returned
 * as `corrupt` (or its Redis type as `kind`, for a key that is not a string) and, unless the
 * command is a `read`, overwritten.
 */
export const CIRCUIT = `${NOW}
local command = cjson.decode(ARGV[1])
local limits = cjson.decode(ARGV[2])
local function time(v) return type(v) == 'number' and v == v and v ~= math.huge and v ~= -math.huge end
local function count(v) return time(v) and v >= 0 and math.floor(v) == v end
local function sound(v)
  if type(v) ~= 'table' then return false end
  if v.state == 'closed' then
    if not count(v.failures) then return false end
    if v.buckets == nil then return true end
    if type(v.buckets) ~= 'table' then return false end
    for _, b in pairs(v.buckets) do
      if type(b) ~= 'table' or not time(b.start) or not count(b.successes) or not count(b.failures) then
        return false
      end
    end
    return true
  elseif v.state == 'open' then return time(v['until'])
  elseif v.state == 'half-open' then
    local l = v.lease
    return l == cjson.null or (type(l) == 'table' and type(l.id) == 'string' and time(l.expires))
  end
  return false
end
local s = {state = 'closed', failures = 0}
local corrupt, kind = nil, nil
local raw = redis.pcall('GET', KEYS[1])
if type(raw) == 'table' and raw.err then kind = redis.call('TYPE', KEYS[1]).ok
elseif raw then
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and sound(decoded) then s = decoded else corrupt = raw end
end
local n = s
local function open() return {state = 'open', ['until'] = now + limits.cooldown} end
if command.type == 'admit' then
  local free = false
  if s.state == 'open' then free = now >= s['until']
  elseif s.state == 'half-open' then free = type(s.lease) ~= 'table' or now >= s.lease.expires end
  if free then n = {state = 'half-open', lease = {id = command.lease, expires = now + limits.probeTimeout}} end
elseif command.type == 'call' then
  if s.state == 'closed' and command.outcome ~= 'neutral' then
    local w = limits.window
    if type(w) ~= 'table' then
      if command.outcome == 'success' then
        if s.failures ~= 0 then n = {state = 'closed', failures = 0} end
      elseif s.failures + 1 >= limits.failures then n = open()
      else n = {state = 'closed', failures = s.failures + 1} end
    else
      local field = 'successes'
      if command.outcome == 'failure' then field = 'failures' end
      local width = w.size / w.buckets
      local start = math.floor(now / width) * width
      local current = nil
      local kept = {}
      if type(s.buckets) == 'table' then
        for _, b in ipairs(s.buckets) do
          if b.start == start then current = b
          elseif b.start > now - w.size then kept[#kept + 1] = b end
        end
      end
      current = current or {start = start, successes = 0, failures = 0}
      local updated = {start = current.start, successes = current.successes, failures = current.failures}
      updated[field] = updated[field] + 1
      kept[#kept + 1] = updated
      local failures, total = 0, 0
      for _, b in ipairs(kept) do
        failures = failures + b.failures
        total = total + b.failures + b.successes
      end
      if command.outcome == 'failure' and total >= w.minimum and failures / total >= w.ratio then n = open()
      else n = {state = 'closed', failures = failures, buckets = kept} end
    end
  end
elseif command.type == 'probe' then
  if s.state == 'half-open' and type(s.lease) == 'table' and s.lease.id == command.lease then
    if command.outcome == 'success' then n = {state = 'closed', failures = 0}
    elseif command.outcome == 'failure' then n = open()
    else n = {state = 'half-open', lease = cjson.null} end
  end
end
local replace = (corrupt or kind) and command.type ~= 'read'
if n ~= s or replace then redis.call('SET', KEYS[1], cjson.encode(n), 'PX', ARGV[3]) end
return cjson.encode({from = s, to = n, now = now, corrupt = corrupt, kind = kind})
`;

/** Milliseconds on the server's clock to the microsecond, and a score written at that precision. */
const PRECISE_NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local function score(ms) return string.format('%.3f', ms) end
`;

/**
 * KEYS[1] the rate window: a sorted set of grant ids, each scored by the last time its request
 * may reach the vendor: `per` after the grant while it is out, the time it ended once it has
 * (END_RATE). A grant counts for a caller while its score is within the caller's `per` of now, so
 * a request that took longer to arrive than its neighbours cannot land in the same window as
 * `count` later ones. ARGV: count, per (ms), id. Returns 0 when the grant is taken (or `id`
 * already holds one: the same take sent again), else how many ms until one may be (a grant still
 * out may end now: it leaves `per` from now at the earliest).
 *
 * Stitches of different `per` may share the key, each counting every grant within its own `per`
 * (as the memory store's throttle does): grants are kept for the longest `per` the key has seen,
 * and so is the key. That `per` is kept in the set itself, as member `longest-per` scored minus
 * it (grants are scored by server times, all positive), so it expires with the grants it keeps,
 * and the script stays on one key (one cluster slot).
 */
export const TAKE_RATE = `${PRECISE_NOW}
local count = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local known = -(tonumber(redis.call('ZSCORE', KEYS[1], 'longest-per')) or 0)
local longest = math.max(per, known)
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, score(now - longest))
-- Each write keeps the key 2 × longest (a grant scored per ≤ longest after it counts up to
-- longest after that): never shorter than before, since longest only grows while the key lives.
if longest > known then
  redis.call('ZADD', KEYS[1], -longest, 'longest-per')
  redis.call('PEXPIRE', KEYS[1], math.ceil(2 * longest))
end
-- A take sent again (a client resending it after its answer was lost) finds its grant.
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 0 end
local held = redis.call('ZCOUNT', KEYS[1], '(' .. score(now - per), '+inf')
if held < count then
  redis.call('ZADD', KEYS[1], score(now + per), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(2 * longest))
  return 0
end
-- The count-th latest grant is within this caller's window (held >= count): the wait is its.
local leaving = redis.call('ZRANGE', KEYS[1], -count, -count, 'WITHSCORES')
return math.max(1, math.ceil(math.min(tonumber(leaving[2]), now) + per - now))
`;

/** KEYS[1] the rate window; ARGV: the id of a grant whose request has ended. Scores it now. */
export const END_RATE = `${PRECISE_NOW}
local out = redis.call('ZSCORE', KEYS[1], ARGV[1])
if out and tonumber(out) > now then redis.call('ZADD', KEYS[1], 'XX', score(now), ARGV[1]) end
return 0
`;

/**
 * KEYS[1] the slots of a shared concurrency limit: a sorted set of holder ids scored by the end
 * of their lease. ARGV: limit, lease (ms), id. An id that holds a slot renews its lease; another
 * takes one when fewer than `limit` leases are live. Returns 0 when `id` holds a slot, else how
 * many ms until the first lease ends.
 */
export const TAKE_SLOT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local holds = redis.call('ZSCORE', KEYS[1], ARGV[3])
if not holds and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(first[2]) - now)
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - now))
return 0
`;

/**
 * KEYS[1] the budget (a hash of `c:<bucket>` calls and `r:<bucket>` retries); ARGV: window (ms),
 * ratio, floor, calls to add, '1' to take a retry. Returns 1 when the retry fits (or none was asked).
 */
export const BUDGET = `${NOW}
local window = tonumber(ARGV[1])
local width = window / 10
local bucket = string.format('%d', math.floor(now / width) * width)
local entries = redis.call('HGETALL', KEYS[1])
local calls, retries = 0, 0
for i = 1, #entries, 2 do
  local field = entries[i]
  if tonumber(string.sub(field, 3)) <= now - window then redis.call('HDEL', KEYS[1], field)
  elseif string.sub(field, 1, 1) == 'c' then calls = calls + tonumber(entries[i + 1])
  else retries = retries + tonumber(entries[i + 1]) end
end
local added = tonumber(ARGV[4])
if added > 0 then
  redis.call('HINCRBY', KEYS[1], 'c:' .. bucket, added)
  calls = calls + added
end
local fits = 1
if ARGV[5] == '1' then
  if retries + 1 > tonumber(ARGV[3]) + tonumber(ARGV[2]) * calls then fits = 0
  else redis.call('HINCRBY', KEYS[1], 'r:' .. bucket, 1) end
end
redis.call('PEXPIRE', KEYS[1], window)
return fits
`;

/** KEYS[1] the record; ARGV: the pending record (JSON), lease (ms). Returns the record that holds it, or nil once claimed. */
export const CLAIM = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/**
 * KEYS[1] the record; ARGV: owner, the done record (JSON) or '' to free the key, ttl (ms).
 * Leaves alone a record someone else holds.
 */
export const SETTLE = `
local held = redis.call('GET', KEYS[1])
if held then
  local record = cjson.decode(held)
  if record.state ~= 'pending' or record.owner ~= ARGV[1] then return 0 end
end
if ARGV[2] == '' then
  if held then redis.call('DEL', KEYS[1]) end
  return 1
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;
