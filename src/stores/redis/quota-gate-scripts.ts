/**
 * The Redis side of the monthly quota gate (create-redis-quota-gate.ts). Per account it keeps:
 * - the account card: plan, status and that plan's limit, filled from the store and dropped whenever
 *   the plan or status changes;
 * - a generation number, bumped by every drop, so a card read from the store before a change can never
 *   be written back after it;
 * - one counter per period: `used` (requests counted, exact) and `granted` (units the store has reserved
 *   for the gate, as far as the gate knows). The gate admits only within `granted`, and the store never
 *   reserves past the limit, so the store's durable count is never below the true one.
 * Every key of one account carries the account id as a hash tag, so the scripts also run on a cluster.
 */

/**
 * The quota checks of an admission, shared by ADMIT_SCRIPT and the one-step admission
 * (admit-request-script.ts): each refusal or reload returns early; past them `card`, `limit`, `weight`
 * and `used` hold the account's plan and count for what the script does next.
 */
export const QUOTA_CHECKS = `
local card = redis.call('HMGET', KEYS[1], 'plan', 'status', 'limit')
if not card[1] then
  return {'card-missing', '', 0, 0, redis.call('GET', KEYS[3]) or '0'}
end
local limit = tonumber(card[3])
if card[2] ~= 'active' then
  return {'inactive', card[1], limit, tonumber(redis.call('HGET', KEYS[2], 'used') or '0'), ''}
end
local counter = redis.call('HMGET', KEYS[2], 'used', 'granted')
if not counter[1] then return {'counter-missing', card[1], limit, 0, ''} end
local weight = tonumber(ARGV[1])
local used = tonumber(counter[1])
if used + weight > limit then return {'rejected', card[1], limit, used, ''} end
if used + weight > tonumber(counter[2]) then return {'needs-reservation', card[1], limit, used, ''} end
`;

/**
 * KEYS: card, counter, generation. ARGV: weight.
 * Returns { outcome, plan, limit, used, generation }; outcome is `admitted`, `rejected`,
 * `inactive`, `card-missing`, `counter-missing` or `needs-reservation` (the last three: the caller loads
 * from the store and calls again). `generation` is only read for `card-missing`.
 */
export const ADMIT_SCRIPT = `${QUOTA_CHECKS}return {'admitted', card[1], limit, redis.call('HINCRBY', KEYS[2], 'used', weight), ''}
`;

/** KEYS: card, generation. ARGV: generation read before the store, plan, status, limit, ttlMs. Returns 1 when written. */
export const FILL_CARD_SCRIPT = `
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'plan', ARGV[2], 'status', ARGV[3], 'limit', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: card, generation. ARGV: how long the generation outlives the change (ms). */
export const FORGET_CARD_SCRIPT = `
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`;

/**
 * KEYS: counter. ARGV: the store's count for the period, expiry (ms since epoch).
 * Starts a counter that is missing (new period, or Redis lost it): everything the store has counted or
 * reserved is taken as used, so a lost counter can cost unused reservations but never admit extra.
 */
export const SEED_COUNTER_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'used', ARGV[1], 'granted', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
`;

/**
 * KEYS: counter. ARGV: the store's count after the reservation (total), units reserved (n, may be 0),
 * expiry (ms since epoch).
 * The n units become available to the gate. Reservations and seeds of one account run one at a time
 * (the account's reservation lock), so what else changed the store's count since the last one was done
 * in the store itself (admissions or refunds while Redis was away, a hold a crashed instance never
 * applied) and moves `used` by exactly that. Should two reservations still cross (a lock that expired
 * under a stalled store), a total the gate has already passed gives its units back by lowering `used`:
 * either order leaves the reserved, unused units available, and never more.
 */
export const APPLY_RESERVATION_SCRIPT = `
local total = tonumber(ARGV[1])
local reserved = tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'used', total - reserved, 'granted', total)
  redis.call('PEXPIREAT', KEYS[1], ARGV[3])
  return 1
end
local granted = tonumber(redis.call('HGET', KEYS[1], 'granted'))
local used = tonumber(redis.call('HGET', KEYS[1], 'used'))
if total > granted then
  used = used + (total - granted - reserved)
  redis.call('HSET', KEYS[1], 'granted', total)
else
  used = used - reserved
end
redis.call('HSET', KEYS[1], 'used', math.max(used, 0))
return 1
`;

/** KEYS: the account's reservation lock. ARGV: the holder's token. Releases the lock only if still held by it. */
export const RELEASE_LOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS: counter. ARGV: weight. Gives a refunded request's units back; a counter Redis lost stays as seeded. */
export const REFUND_SCRIPT = `
local used = redis.call('HGET', KEYS[1], 'used')
if not used then return 0 end
redis.call('HSET', KEYS[1], 'used', math.max(tonumber(used) - tonumber(ARGV[1]), 0))
return 1
`;
