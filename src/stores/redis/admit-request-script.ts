/**
 * A model request's whole admission on Redis in one script, so one round trip (docs/limits.md, "One
 * round trip"): the monthly quota (ADMIT_SCRIPT's checks), then a slot in flight (TAKE_SLOT_SCRIPT's
 * steps, on Redis's clock), then the per-minute window (SLIDING_WINDOW_SCRIPT's steps, on the caller's
 * clock), in the order the stages check them, and only when all three have room all three are counted.
 * A request refused by one of them takes nothing from the others, and its slot exists from the same
 * atomic step as its count: no time the router spends waiting for Redis is ever a slot of the account.
 *
 * KEYS: card, counter, generation, leases, window (all of one account, one hash tag).
 * ARGV: weight, nowMs, windowMs, leaseMs, lease member, window member, then per plan: id, requests per
 *   minute, requests in flight.
 * Returns { outcome, plan, limit, used, generation, inFlight, inWindow, now, oldest }: ADMIT_SCRIPT's
 * outcomes (`admitted` now means all three), plus `in-flight-full` and `window-full`; the last four only
 * past the quota checks (`now` the window's time, `oldest` missing for an empty window).
 */
import { QUOTA_CHECKS } from './quota-gate-scripts.js';

export const ADMIT_REQUEST_SCRIPT = `${QUOTA_CHECKS}
local perMinute, inFlightCap = 0, 0
for i = 7, #ARGV, 3 do
  if ARGV[i] == card[1] then
    perMinute = tonumber(ARGV[i + 1])
    inFlightCap = tonumber(ARGV[i + 2])
  end
end

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', clock)
local inFlight = redis.call('ZCARD', KEYS[4])

-- Time in one window never runs backwards: an instance whose clock reads a little earlier than the
-- newest entry's (or whose request took longer to get here) decides at that entry's time.
local now = tonumber(ARGV[2])
local newest = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')[2]
if newest and tonumber(newest) > now then now = tonumber(newest) end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - window)
local inWindow = redis.call('ZCARD', KEYS[5])
if inWindow > perMinute then
  redis.call('ZREMRANGEBYRANK', KEYS[5], 0, inWindow - perMinute - 1)
  inWindow = perMinute
end

if inFlight >= inFlightCap then
  return {'in-flight-full', card[1], limit, used, '', inFlight, inWindow, now, redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')[2]}
end
if inWindow >= perMinute then
  return {'window-full', card[1], limit, used, '', inFlight, inWindow, now, redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[4], clock + lease, ARGV[5])
redis.call('PEXPIRE', KEYS[4], lease)
redis.call('ZADD', KEYS[5], now, ARGV[6])
redis.call('PEXPIRE', KEYS[5], window)
used = redis.call('HINCRBY', KEYS[2], 'used', weight)
return {'admitted', card[1], limit, used, '', inFlight + 1, inWindow + 1, now, redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')[2]}
`;

/**
 * Undoes an ADMIT_REQUEST_SCRIPT call whose answer came too late (its request was decided without Redis),
 * should it have admitted: sent on the same connection, it runs after it. Exact: the count goes back only
 * if the lease or the window entry of that very call was there.
 * KEYS: counter, leases, window. ARGV: weight, lease member, window member. Returns 1 when it undid one.
 */
export const UNDO_ADMIT_REQUEST_SCRIPT = `
local lease = redis.call('ZREM', KEYS[2], ARGV[2])
local entry = redis.call('ZREM', KEYS[3], ARGV[3])
if lease == 0 and entry == 0 then return 0 end
local used = redis.call('HGET', KEYS[1], 'used')
if used then redis.call('HSET', KEYS[1], 'used', math.max(tonumber(used) - tonumber(ARGV[1]), 0)) end
return 1
`;
