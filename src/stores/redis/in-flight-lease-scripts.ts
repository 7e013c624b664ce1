/**
 * The Redis side of the in-flight caps: one sorted set per account holding a lease per request in flight,
 * scored by the lease's deadline. Taking a slot first drops the expired leases, so the slots of an
 * instance that died (and stopped refreshing its leases) come back once their deadlines pass. Time is
 * Redis's own clock (TIME), so instances with skewed clocks still agree on every deadline.
 *
 * TAKE: KEYS[1] the account's leases; ARGV: limit, unique member, lease ms.
 *   Returns { allowed (0|1), leases after the decision }.
 * REFRESH: KEYS[1]; ARGV: member, lease ms. Moves a live lease's deadline on; returns 0 when the lease
 *   is gone (expired, or Redis lost it), which nobody needs to act on: the request simply runs on.
 */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

export const TAKE_SLOT_SCRIPT = `${NOW}
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[1]) then
  return { 0, count }
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[2])
redis.call('PEXPIRE', KEYS[1], lease)
return { 1, count + 1 }
`;

export const REFRESH_SLOT_SCRIPT = `${NOW}
local lease = tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
return 1
`;
