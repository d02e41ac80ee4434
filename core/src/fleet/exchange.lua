-- One scope's fleet exchange, run atomically by Redis (EVAL / EVALSHA):
-- add a process's delta to the fleet's buckets once, then read the
-- fleet's totals over the window. The wire form is stoic_core::fleet's.
--
-- KEYS[1]  the scope's base key, hash-tagged: "<prefix>{<scope>}", so
--          every key of a scope lives in one Redis Cluster slot
-- ARGV[1]  the process's id (random per attached policy)
-- ARGV[2]  the scope's delta (JSON): scope, seq, bucket_ms, window_ms,
--          buckets [[index, first_attempts, retries], ...], breaker (null,
--          or opened_until, closed_until, wants_probe, lease_ms)
--
-- Keys: "<base>:b:<index>" a hash {r = first attempts, t = retries} that
-- expires a window after its bucket ends; "<base>:seq:<id>" the last
-- sequence number applied for that process (a resent delta counts once);
-- "<base>:open" the fleet's breaker open until then (ms of Redis' clock;
-- kept past its end until a probe's verdict, so that no process closes
-- without one); "<base>:lease" the id of the process that holds the
-- half-open probe, for one cooldown; "<base>:closed" the end of the open
-- period the last probe verdict closed.
-- Returns the scope's view (JSON): scope, seq, bucket_ms, buckets,
-- open_until (absent when closed), closed_until, lease (whether this
-- process holds it).
local base = KEYS[1]
local delta = cjson.decode(ARGV[2])
local seq = tonumber(delta.seq)
local bucket_ms = tonumber(delta.bucket_ms)
local window_ms = tonumber(delta.window_ms)
local ttl = window_ms + bucket_ms
local lease, open_until, closed_until = false, nil, nil

if seq > 0 then
  local seq_key = base .. ':seq:' .. ARGV[1]
  local last = tonumber(redis.call('GET', seq_key) or '0')
  if seq > last then
    -- Kept for a day: a process silent longer than that starts afresh.
    redis.call('SET', seq_key, seq, 'PX', 86400000)
    for _, bucket in ipairs(delta.buckets) do
      local key = base .. ':b:' .. string.format('%d', bucket[1])
      redis.call('HINCRBY', key, 'r', bucket[2])
      redis.call('HINCRBY', key, 't', bucket[3])
      redis.call('PEXPIRE', key, ttl)
    end
  end
end

local time = redis.call('TIME')
local now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local breaker = delta.breaker
if type(breaker) == 'table' then
  local open_key, lease_key = base .. ':open', base .. ':lease'
  local holder = redis.call('GET', lease_key)
  local opened = tonumber(breaker.opened_until)
  local closed = tonumber(breaker.closed_until)
  if opened then
    local current = tonumber(redis.call('GET', open_key) or '0')
    if opened > current then
      redis.call('SET', open_key, string.format('%d', opened), 'PX', 86400000)
    end
  end
  local closed_key = base .. ':closed'
  if closed then
    -- Closes the open period the probe was for, not a later one, and says
    -- so: a process still open for that period closes; one whose open
    -- period the store lost (a restart) tells the store again.
    local current = tonumber(redis.call('GET', open_key) or '0')
    if current <= closed then
      redis.call('DEL', open_key)
    end
    if closed > tonumber(redis.call('GET', closed_key) or '0') then
      redis.call('SET', closed_key, string.format('%d', closed), 'PX', 86400000)
    end
  end
  if (opened or closed) and holder == ARGV[1] then
    -- The probe's verdict is in: the next cooldown's probe is anyone's.
    redis.call('DEL', lease_key)
    holder = false
  end
  -- The lease goes out once the fleet's cooldown has elapsed by the
  -- store's clock, to the first process that asks.
  local open_end = tonumber(redis.call('GET', open_key) or '-1')
  if breaker.wants_probe == true and open_end >= 0 and open_end <= now_ms then
    local lease_ms = math.max(tonumber(breaker.lease_ms) or 0, 1)
    if redis.call('SET', lease_key, ARGV[1], 'NX', 'PX', lease_ms) then
      holder = ARGV[1]
    else
      holder = redis.call('GET', lease_key)
    end
  end
  lease = holder == ARGV[1]
  local raw = redis.call('GET', open_key)
  if raw then
    open_until = tonumber(raw)
  end
  local ended = redis.call('GET', closed_key)
  if ended then
    closed_until = tonumber(ended)
  end
end

local newest = math.floor(now_ms / bucket_ms)
local span = math.floor(window_ms / bucket_ms)
local buckets = {}
for index = newest - span, newest do
  local counts = redis.call('HMGET', base .. ':b:' .. string.format('%d', index), 'r', 't')
  if counts[1] or counts[2] then
    buckets[#buckets + 1] = {index, tonumber(counts[1] or '0'), tonumber(counts[2] or '0')}
  end
end
return cjson.encode({scope = delta.scope, seq = seq, bucket_ms = bucket_ms, buckets = buckets,
                     open_until = open_until, closed_until = closed_until, lease = lease or false})
