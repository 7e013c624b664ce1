/**
 * The Redis side of the exact sliding-window log (same algorithm as stores/memory): one sorted set per
 * account, scored by admission time. One script call per request keeps check-and-count atomic across
 * every router instance. The caller passes the time, so all decisions use the injected clock.
 *
 * KEYS[1] the account's window; ARGV: nowMs, windowMs, limit, unique member, '1' to count or '0' to peek.
 * Returns { allowed (0|1), count in window after the decision, oldest score or nothing when empty }.
 */
export const SLIDING_WINDOW_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
-- After a plan downgrade keep only the newest entries that fit, as the memory limiter does.
if count > limit then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - limit - 1)
  count = limit
end
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    redis.call('PEXPIRE', KEYS[1], window)
    count = count + 1
  end
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return { allowed, count, oldest }
`;
