/**
 * Measured routing's state (figures and hysteresis leaders) shared by every instance through Redis:
 * one key per deployment (`{keyPrefix}measured`), a hash holding the state as JSON and a version.
 * Once per interval each process reads it, folds in what it measured and decided since the last time
 * (measurements-exchange.ts, the same fold as the cluster primary's), writes it back only if nobody
 * wrote in between (a compare-and-set on the version, retried a few times) and adopts the result. So
 * every instance ranks by the same figures and leaders, about one interval behind. The state is
 * bounded (route-measurements.ts keeps at most 1024 figures and 1024 leaders) and expires after
 * STATE_TTL_MS without a write. While Redis does not answer, each process keeps what it has and learns
 * alone; what it could not deliver goes with the next exchange (bounded).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../../core/clock.js';
import { RouteMeasurements } from '../../routing/route-measurements.js';
import { adoptShared, foldContribution, PendingContribution, sharedState } from '../measurements-exchange.js';
import { connectRedis } from './connect-redis.js';

export const SHARE_INTERVAL_MS = 1000;
/** Figures go stale after five minutes anyway (route-measurements.ts); an hour without any traffic clears the key. */
const STATE_TTL_MS = 60 * 60_000;
/** Writes lost to another instance's in a row before this exchange gives up until the next interval. */
const ATTEMPTS = 3;

/** Writes the new state only if the version is still the one read ('' when there was none). */
const WRITE_IF_UNCHANGED_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'v') or ''
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'state', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

interface WriteCommand {
  routerWriteMeasured(key: string, expected: string, version: string, state: string, ttlMs: number): Promise<number>;
}

export interface RedisMeasurementsOptions {
  url: string;
  keyPrefix: string;
  clock: Clock;
  intervalMs?: number;
}

/** Starts sharing; returns a function that stops it and closes the connection. */
export function shareMeasurementsThroughRedis(measurements: RouteMeasurements, options: RedisMeasurementsOptions): () => void {
  const redis = connectRedis(options.url) as Redis & WriteCommand;
  redis.defineCommand('routerWriteMeasured', { numberOfKeys: 1, lua: WRITE_IF_UNCHANGED_SCRIPT });
  // Errors are the exchange's to handle; this listener only keeps ioredis from printing each reconnect.
  redis.on('error', () => undefined);
  const key = `${options.keyPrefix}measured`;
  const pending = new PendingContribution(measurements);
  let running = false;

  async function exchange(): Promise<void> {
    const contribution = pending.take();
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const [version, stored] = await redis.hmget(key, 'v', 'state');
        const shared = new RouteMeasurements(options.clock);
        if (stored) adoptShared(shared, parseState(stored));
        const changed = contribution.samples.length > 0 || contribution.leaders.length > 0;
        if (changed) foldContribution(shared, contribution);
        const state = sharedState(shared);
        if (!changed || (await redis.routerWriteMeasured(key, version ?? '', randomUUID(), JSON.stringify(state), STATE_TTL_MS)) === 1) {
          pending.settle();
          adoptShared(measurements, state, pending);
          return;
        }
      }
      pending.giveBack(contribution);
    } catch {
      pending.giveBack(contribution);
    }
  }

  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void exchange().finally(() => (running = false));
  }, options.intervalMs ?? SHARE_INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    redis.disconnect();
  };
}

function parseState(text: string): { figures?: unknown; leaders?: unknown } {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as { figures?: unknown; leaders?: unknown }) : {};
  } catch {
    return {};
  }
}
