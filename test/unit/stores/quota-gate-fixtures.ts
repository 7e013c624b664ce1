/**
 * What the Redis quota gate test files share: a real PostgreSQL store in a schema of the file's own and a
 * real Redis under a key prefix of the file's own (both removed after the file), gates on them that are
 * closed after each test, and the plans, periods and small helpers the tests count with.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { quotaPeriod } from '../../../src/core/quota-period.js';
import { forgetOnAccountChange } from '../../../src/stores/forget-on-account-change.js';
import { createPostgresStore } from '../../../src/stores/postgres/create-postgres-store.js';
import type { QuotaDecision, QuotaLedger } from '../../../src/stores/quota-ledger.js';
import { createRedisQuotaGate, type RedisQuotaGateOptions } from '../../../src/stores/redis/create-redis-quota-gate.js';
import type { Store } from '../../../src/stores/store.js';
import { deleteRedisKeys, dropSchemas } from '../../support/service-cleanup.js';

const postgresUrl = process.env.ROUTER_TEST_POSTGRES_URL;
const redisUrl = process.env.ROUTER_TEST_REDIS_URL;

/** Why the quota gate tests cannot run here, or undefined when they can. */
export const quotaGateSkipReason =
  postgresUrl && redisUrl
    ? undefined
    : 'skipping Redis quota gate tests: set ROUTER_TEST_POSTGRES_URL and ROUTER_TEST_REDIS_URL (e.g. postgres://postgres@127.0.0.1:5432/test, redis://127.0.0.1:6379)';

// Counters expire a day after their period ends, so the tests use the real current month and the next.
export const PERIOD = quotaPeriod(Date.now()).key;
export const NEXT_PERIOD = quotaPeriod(Date.parse(quotaPeriod(Date.now()).resetsAt)).key;
/** One plan per block size: reservationBlock(37) = 1, (200) = 2, (1000) = 10, (1,000,000) = 100. */
export const LIMITS = { tiny: 3, small: 2, medium: 5, ten: 10, large: 20, exact: 37, hundred: 100, mid: 200, thousand: 1000, big: 1_000_000 };

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const admittedUsed = (decisions: readonly QuotaDecision[]): number[] =>
  decisions
    .filter((decision) => decision.admitted)
    .map((decision) => decision.used)
    .sort((a, b) => a - b);
/** One admission of `weight` units under the file's plan limits. */
export const admitOnce = async (ledger: QuotaLedger, accountId: string, period = PERIOD, weight = 1): Promise<QuotaDecision> =>
  ledger.admit({ accountId, period, weight, limitsByPlan: LIMITS });

/** `calls` admissions of weight 1 at once, spread over `ledgers`. */
export const admitAll = (ledgers: readonly QuotaLedger[], accountId: string, calls: number, period = PERIOD): Promise<QuotaDecision[]> =>
  Promise.all(Array.from({ length: calls }, (_, i) => admitOnce(ledgers[i % ledgers.length]!, accountId, period)));

/**
 * What every gate owes account changes: a plan change or a deactivation made through
 * forgetOnAccountChange decides the very next admission, and what was admitted is in the store's count
 * once the gate has closed. `accountId` is a fresh account on the `medium` plan.
 */
export async function expectAccountChangesAtTheNextAdmission(store: Store, ledger: QuotaLedger, accountId: string): Promise<void> {
  const failures: unknown[] = [];
  const accounts = forgetOnAccountChange(store, ledger, (_id, error) => failures.push(error));
  for (let i = 0; i < 4; i++) await admitOnce(ledger, accountId);

  await accounts.setAccountPlan(accountId, 'small', 'cli');
  expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'small', status: 'active', admitted: false, used: 4, limit: 2 });
  await accounts.setAccountPlan(accountId, 'large', 'cli');
  expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'large', status: 'active', admitted: true, used: 5, limit: 20 });
  await accounts.deactivateAccount(accountId, 'cli');
  expect(await admitOnce(ledger, accountId)).toMatchObject({ plan: 'large', status: 'inactive', admitted: false });
  expect(failures).toEqual([]);

  await ledger.close();
  expect(await store.readQuota(accountId, PERIOD)).toBe(5);
}

export const oneTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/**
 * The same store, counting the holds the gate asks for; `beforeHold(n)` runs (real store calls) just
 * before the n-th hold, to let "another instance" act between two of this gate's store calls.
 */
export function watchHolds(store: Store, beforeHold: (n: number) => Promise<unknown> = async () => undefined) {
  let holds = 0;
  const watched: Store = {
    ...store,
    async holdQuota(input) {
      await beforeHold(++holds);
      return store.holdQuota(input);
    },
  };
  return { store: watched, holds: () => holds };
}

export const cardKey = (prefix: string, accountId: string) => `${prefix}quota-card:{${accountId}}`;
export const generationKey = (prefix: string, accountId: string) => `${prefix}quota-gen:{${accountId}}`;
export const counterKey = (prefix: string, accountId: string, period = PERIOD) => `${prefix}quota:{${accountId}}:${period}`;

export interface QuotaGateFixture {
  /** The file's PostgreSQL store, migrated in its own schema; open from beforeAll to afterAll. */
  readonly store: Store;
  /** A client of the Redis the gates use, to read and change their keys directly. */
  readonly redis: Redis;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** The file's PostgreSQL schema, for stores a test opens itself. */
  readonly schema: string;
  /** A key prefix no other test uses, so tests never share cards or counters. */
  nextPrefix(): string;
  /** A gate on the file's store and Redis (unless the options say otherwise), closed after the test. */
  gate(options: Partial<RedisQuotaGateOptions> & { keyPrefix: string }): QuotaLedger;
  /** Closes `resource` after the test, with the gates. */
  closeAfterTest(resource: { close(): Promise<unknown> }): void;
  newAccount(plan: string, on?: Store): Promise<string>;
  admitOnce(ledger: QuotaLedger, accountId: string, period?: string, weight?: number): Promise<QuotaDecision>;
  /** `calls` admissions of weight 1 at once, spread over `ledgers`. */
  admitAll(ledgers: readonly QuotaLedger[], accountId: string, calls: number, period?: string): Promise<QuotaDecision[]>;
}

/**
 * Registers the hooks that open and remove the file's schema, Redis keys and gates; call it once, inside
 * the file's `describe.skipIf(quotaGateSkipReason !== undefined)`. `name` tells the file's schema apart.
 */
export function useQuotaGateFixture(name: string): QuotaGateFixture {
  const databaseUrl = postgresUrl ?? '';
  const redisAt = redisUrl ?? '';
  const run = randomBytes(4).toString('hex');
  const schema = `test_quota_gate_${name}_${run}`;
  // Every test gets its own key prefix under this file's, so tests never share cards or counters.
  const runPrefix = `rl:test:gate:${name}:${run}:`;
  let prefixes = 0;
  let store: Store | undefined;
  let redis: Redis | undefined;
  const opened: Array<{ close(): Promise<unknown> }> = [];
  const opening = (what: string) => new Error(`${what} is opened in beforeAll: use it inside a test or hook`);

  beforeAll(async () => {
    store = createPostgresStore({ url: databaseUrl, schema, clock: systemClock, poolSize: 8 });
    await store.migrate();
    redis = new Redis(redisAt);
  });

  afterEach(async () => {
    // Closing twice is harmless; tests that close a gate themselves do so to flush its settlements.
    await Promise.all(opened.splice(0).map((resource) => resource.close()));
  });

  afterAll(async () => {
    await store?.close();
    await dropSchemas(databaseUrl, schema);
    await redis?.quit();
    await deleteRedisKeys(redisAt, runPrefix);
  });

  const fixture: QuotaGateFixture = {
    get store() {
      if (!store) throw opening('the store');
      return store;
    },
    get redis() {
      if (!redis) throw opening('the Redis client');
      return redis;
    },
    databaseUrl,
    redisUrl: redisAt,
    schema,
    nextPrefix: () => `${runPrefix}${prefixes++}:`,
    gate(options) {
      const ledger = createRedisQuotaGate({ store: fixture.store, url: redisAt, settleMs: 50, storeProbeMs: 50, ...options });
      opened.push(ledger);
      return ledger;
    },
    closeAfterTest: (resource) => void opened.push(resource),
    newAccount: async (plan, on = fixture.store) => (await on.createAccount({ email: 'gate@example.com', plan }, 'cli')).id,
    admitOnce,
    admitAll,
  };
  return fixture;
}
