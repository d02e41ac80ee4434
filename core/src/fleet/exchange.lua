-- One scope's fleet exchange, run atomically by Redis (EVAL / EVALSHA):
-- add a process's delta to the fleet's buckets once, then read the
-- fleet's totals over the window. The wire form is stoic_core::fleet's.
--
-- KEYS[1]  the scope's base key, hash-tagged: "<prefix>{<scope>}", so
--          every key of a scope lives in one Redis Cluster slot
-- ARGV[1]  the process's id (random per attached policy)
-- ARGV[2]  the scope's delta (JSON): scope, seq, bucket_ms, window_ms,
--          buckets [[index, first_attempts, retries], ...]
--
-- Keys: "<base>:b:<index>" a hash {r = first attempts, t = retries} that
-- expires a window after its bucket ends; "<base>:seq:<id>" the last
-- sequence number applied for that process (a resent delta counts once).
-- Returns the scope's view (JSON): scope, seq, bucket_ms, buckets.
local base = KEYS[1]
local delta = cjson.decode(ARGV[2])
local seq = tonumber(delta.seq)
local bucket_ms = tonumber(delta.bucket_ms)
local window_ms = tonumber(delta.window_ms)
local ttl = window_ms + bucket_ms

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
local newest = math.floor(now_ms / bucket_ms)
local span = math.floor(window_ms / bucket_ms)
local buckets = {}
for index = newest - span, newest do
  local counts = redis.call('HMGET', base .. ':b:' .. string.format('%d', index), 'r', 't')
  if counts[1] or counts[2] then
    buckets[#buckets + 1] = {index, tonumber(counts[1] or '0'), tonumber(counts[2] or '0')}
  end
end
return cjson.encode({scope = delta.scope, seq = seq, bucket_ms = bucket_ms, buckets = buckets})
