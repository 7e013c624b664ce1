/**
 * Credential circuits shared by every instance through Redis (routing/credential-health.ts): each change
 * an instance makes is written under `<keyPrefix>credential-circuit:<owner>:<provider>` with a TTL of the
 * provider's wait (so Redis forgets a throttle when the provider does) and published on
 * `<keyPrefix>credential-circuits`, which every instance (and every cluster worker: each is an instance
 * here) applies at once; an instance that starts reads the keys still there. Only fingerprints travel,
 * never a key. Redis down: each instance keeps its own circuits (in memory, as with one process) and
 * shares again once Redis answers.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../../core/clock.js';
import { randomHex } from '../../core/random-hex.js';
import type { CredentialHealth } from '../../routing/credential-health.js';
import { isCredentialCircuitChange } from '../cluster/share-credential-circuits.js';
import { connectRedis, firstAttempt } from './connect-redis.js';

/** A rejection the app shows stays in Redis this long (it is cleared sooner by an accepted request). */
const REJECTION_TTL_MS = 24 * 3_600_000;
/** At most this many circuits are read at start: the rest arrive as they change. */
const MAX_READ_AT_START = 10_000;
const MAX_MESSAGE_LENGTH = 2000;

export interface RedisCredentialCircuitsOptions {
  url: string;
  /** Per deployment, as for the limiters (`rateLimit.keyPrefix`). */
  keyPrefix?: string;
  clock: Clock;
}

/** Starts sharing; resolves once the circuits already in Redis are read (or Redis did not answer). Returns the stop. */
export async function shareCredentialCircuitsInRedis(health: CredentialHealth, options: RedisCredentialCircuitsOptions): Promise<() => Promise<void>> {
  const prefix = options.keyPrefix ?? 'rl:';
  const channel = `${prefix}credential-circuits`;
  const keyPattern = `${prefix}credential-circuit:`;
  const origin = randomHex(8);
  const writer = connectRedis(options.url);
  const reader = connectRedis(options.url);
  // Errors are expected while Redis is down; the circuits stay in memory meanwhile.
  for (const redis of [writer, reader]) redis.on('error', () => undefined);
  let sharing = true;

  health.onChange((change) => {
    if (!sharing) return;
    const key = `${keyPattern}${change.owner}:${change.provider}`;
    const ttlMs = Math.max(change.open ? change.open.until - options.clock.now() : 0, change.rejection ? REJECTION_TTL_MS : 0);
    const write = writer.multi();
    if (ttlMs > 0) write.set(key, JSON.stringify(change), 'PX', Math.ceil(ttlMs));
    else write.del(key);
    write.publish(channel, JSON.stringify({ origin, change }));
    write.exec().catch(() => undefined);
  });

  reader.on('message', (from: string, text: string) => {
    if (from !== channel || text.length > MAX_MESSAGE_LENGTH) return;
    const message = parse(text) as { origin?: unknown; change?: unknown } | undefined;
    if (message && message.origin !== origin && isCredentialCircuitChange(message.change)) health.adopt(message.change);
  });
  // Subscribed on every (re)connection: one made while Redis was down at start would otherwise be lost.
  reader.on('ready', () => void reader.subscribe(channel).catch(() => undefined));
  await Promise.all([firstAttempt(writer), firstAttempt(reader)]);
  await readExisting(writer, keyPattern, health);

  return async () => {
    sharing = false;
    await Promise.all([writer, reader].map((redis) => redis.quit().catch(() => redis.disconnect())));
  };
}

async function readExisting(redis: Redis, keyPattern: string, health: CredentialHealth): Promise<void> {
  try {
    let cursor = '0';
    let read = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(keyPattern)}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      for (const text of await redis.mget(keys)) {
        const change = text === null || text.length > MAX_MESSAGE_LENGTH ? undefined : parse(text);
        if (isCredentialCircuitChange(change)) health.adopt(change);
      }
      read += keys.length;
    } while (cursor !== '0' && read < MAX_READ_AT_START);
  } catch {
    // Redis is not answering: the circuits arrive as they change once it is back.
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A key prefix is the operator's text: its glob characters match only themselves. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
