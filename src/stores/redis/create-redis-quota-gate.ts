/**
 * The fast monthly quota path for many instances: each admission is one Redis script shared by every
 * instance, exact under any concurrency. The store stays the durable authority: the gate only admits
 * within units the store holds for it (one conditional increment per block of requests, never past the
 * limit), so the store's `used + held` is never below the true count and a lost Redis can only cost
 * unused held units, never admit extra. Admissions are settled into the store's exact `used` column
 * within one settle interval. Plan and status come from an account card in Redis that every plan change
 * or deactivation drops (forgetAccount), so a change applies to the next request.
 *
 * Redis unreachable: decisions go to the store's own atomic admission (exact, slower), reported in
 * status(). Store unreachable: requests fail closed with StoreUnavailableError, at the latest two store
 * probe intervals after it went away (until then the gate admits only within units already held).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { periodEndMs } from '../../core/quota-period.js';
import type { AlongsideQuota, QuotaDecision, QuotaLedger, QuotaLedgerStatus } from '../quota-ledger.js';
import { reservationBlock } from '../quota-reservation.js';
import { peekInStore } from '../store-quota-ledger.js';
import { NotFoundInStoreError, StoreUnavailableError, type QuotaAdmitInput, type Store } from '../store.js';
import { ADMIT_REQUEST_SCRIPT, UNDO_ADMIT_REQUEST_SCRIPT } from './admit-request-script.js';
import { connectRedis, firstAttempt, watchAvailability } from './connect-redis.js';
import { RATE_WINDOW_MS } from '../memory/rate-decision.js';
import { keepLeases } from './lease-keeper.js';
import { createSettlementQueue } from './settlement-queue.js';
import { alongsideOf, wholeRequest, type RequestReply, type WholeRequest } from './whole-request.js';

export { MAX_RESERVATION, reservationBlock } from '../quota-reservation.js';
import {
  ADMIT_SCRIPT,
  APPLY_RESERVATION_SCRIPT,
  FILL_CARD_SCRIPT,
  FORGET_CARD_SCRIPT,
  REFUND_SCRIPT,
  RELEASE_LOCK_SCRIPT,
  SEED_COUNTER_SCRIPT,
} from './quota-gate-scripts.js';

export interface RedisQuotaGateOptions {
  store: Store;
  /** `redis://…` or `rediss://…`. */
  url: string;
  /** Prefix of every key the gate writes (default `rl:`), shared with the per-minute windows. */
  keyPrefix?: string;
  /** Upper bound on how long a card outlives a change Redis was not told about (default 60 s). */
  cardTtlMs?: number;
  /** How often the store is probed; it fails closed at most two intervals after the store goes away (default 1 s). */
  storeProbeMs?: number;
  /** How often admissions are settled into the store's `used` column (default 1 s). */
  settleMs?: number;
  /** Called once each time decisions move to the store because Redis is unreachable. */
  onUnavailable?: (reason: string) => void;
  /** How long an in-flight lease taken with a whole request's admission lives without a refresh (default 30 s). */
  leaseMs?: number;
}

type Outcome = 'admitted' | 'rejected' | 'inactive' | 'card-missing' | 'counter-missing' | 'needs-reservation';
type AdmitReply = [outcome: Outcome, plan: string, limit: number, used: number, generation: string];

interface GateCommands {
  quotaAdmit(card: string, counter: string, generation: string, weight: number): Promise<AdmitReply>;
  quotaAdmitRequest(card: string, counter: string, generation: string, leases: string, window: string, weight: number, ...args: Array<string | number>): Promise<RequestReply>;
  quotaUndoAdmitRequest(counter: string, leases: string, window: string, weight: number, leaseMember: string, windowMember: string): Promise<number>;
  quotaFillCard(card: string, generation: string, seen: string, plan: string, status: string, limit: number, ttlMs: number): Promise<number>;
  quotaForgetCard(card: string, generation: string, keepMs: number): Promise<number>;
  quotaSeedCounter(counter: string, total: number, expireAtMs: number): Promise<number>;
  quotaApplyReservation(counter: string, total: number, reserved: number, expireAtMs: number): Promise<number>;
  quotaRefund(counter: string, weight: number): Promise<number>;
  quotaReleaseLock(lock: string, token: string): Promise<number>;
}

/** Script calls per admission before deciding in the store instead; each step is progress by someone. */
const MAX_STEPS = 16;
/**
 * How long an account's reservation lock lasts if its holder never releases it (a crash): longer than
 * the two store statements a reservation makes can take (PostgreSQL queries time out after 5 s).
 */
const LOCK_MS = 12_000;
/** Waits between steps while another instance holds the lock: 1, 2, 4 … 16 ms, about 0.2 s in all. */
const lockWait = (step: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.min(2 ** step, 16)));
/** Probe intervals a store ping may stay unanswered before the store counts as down (a hung network). */
const STORE_PROBES_MISSED_FOR_DOWN = 3;
/** A generation must outlive any store read that started before the change it guards against. */
const GENERATION_KEEP_MS = 24 * 60 * 60 * 1000;
/** Counters outlive their period by a day, for clocks that disagree a little. */
const COUNTER_GRACE_MS = 24 * 60 * 60 * 1000;


/** A store that neither answers nor refuses within `ms` (a hung network) counts as unavailable. */
function answersWithin(call: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}

function connect(url: string): Redis & GateCommands {
  const redis = connectRedis(url);
  redis.defineCommand('quotaAdmit', { numberOfKeys: 3, lua: ADMIT_SCRIPT });
  redis.defineCommand('quotaAdmitRequest', { numberOfKeys: 5, lua: ADMIT_REQUEST_SCRIPT });
  redis.defineCommand('quotaUndoAdmitRequest', { numberOfKeys: 3, lua: UNDO_ADMIT_REQUEST_SCRIPT });
  redis.defineCommand('quotaFillCard', { numberOfKeys: 2, lua: FILL_CARD_SCRIPT });
  redis.defineCommand('quotaForgetCard', { numberOfKeys: 2, lua: FORGET_CARD_SCRIPT });
  redis.defineCommand('quotaSeedCounter', { numberOfKeys: 1, lua: SEED_COUNTER_SCRIPT });
  redis.defineCommand('quotaApplyReservation', { numberOfKeys: 1, lua: APPLY_RESERVATION_SCRIPT });
  redis.defineCommand('quotaRefund', { numberOfKeys: 1, lua: REFUND_SCRIPT });
  redis.defineCommand('quotaReleaseLock', { numberOfKeys: 1, lua: RELEASE_LOCK_SCRIPT });
  return redis as Redis & GateCommands;
}

export function createRedisQuotaGate(options: RedisQuotaGateOptions): QuotaLedger {
  const { store } = options;
  const prefix = options.keyPrefix ?? 'rl:';
  const cardTtlMs = options.cardTtlMs ?? 60_000;
  const redis = connect(options.url);
  const connected = firstAttempt(redis);
  let storeDown = false;
  /** One store round trip per account and purpose at a time on this instance; the others wait for it. */
  const inFlight = new Map<string, Promise<unknown>>();
  /** Weight of this instance's admissions under way per counter: how much one reservation should cover. */
  const demand = new Map<string, number>();
  const settlements = createSettlementQueue(store, options.settleMs ?? 1000);
  const instanceId = randomBytes(6).toString('hex');
  let lockSequence = 0;
  const leaseMs = options.leaseMs ?? 30_000;
  const leases = keepLeases(redis, leaseMs);
  let requestSequence = 0;

  const availability = watchAvailability(redis, (reason) => options.onUnavailable?.(reason));

  const probeMs = options.storeProbeMs ?? 1000;
  let probing = false;
  let unansweredProbes = 0;
  const probe = setInterval(() => {
    // A probe still unanswered after STORE_PROBES_MISSED_FOR_DOWN intervals means a hung network; one
    // slow answer (a slow or busy store) is no outage and refuses nobody.
    if (probing) {
      if (++unansweredProbes >= STORE_PROBES_MISSED_FOR_DOWN) storeDown = true;
      return;
    }
    probing = true;
    store
      .ping()
      .then(
        () => {
          storeDown = false;
          unansweredProbes = 0;
        },
        // A refused or failed ping is an outage at once.
        () => (storeDown = true),
      )
      .finally(() => (probing = false));
  }, probeMs);
  probe.unref();

  const cardKeys = (accountId: string) => ({ card: `${prefix}quota-card:{${accountId}}`, generation: `${prefix}quota-gen:{${accountId}}` });
  const keysOf = (accountId: string, period: string) => ({
    ...cardKeys(accountId),
    counter: `${prefix}quota:{${accountId}}:${period}`,
    lock: `${prefix}quota-lock:{${accountId}}:${period}`,
    expireAtMs: periodEndMs(period) + COUNTER_GRACE_MS,
  });
  type Keys = ReturnType<typeof keysOf>;

  function once<T>(key: string, work: () => Promise<T>): Promise<T> {
    const running = inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = work().finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  }

  async function admitInStore(input: QuotaAdmitInput): Promise<QuotaDecision> {
    const admission = await store.admitQuota(input);
    return { ...admission, refund: () => store.refundQuota(input.accountId, input.period, input.weight) };
  }

  async function fillCard(keys: Keys, accountId: string, seenGeneration: string, limitsByPlan: QuotaAdmitInput['limitsByPlan']) {
    const account = await store.getAccount(accountId);
    if (!account) throw new NotFoundInStoreError('account', accountId);
    const limit = limitsByPlan[account.plan] ?? 0;
    await redis.quotaFillCard(keys.card, keys.generation, seenGeneration, account.plan, account.status, limit, cardTtlMs);
  }

  /**
   * Seeds and reservations of one account and period run one at a time across all instances, so each
   * one sees the store's count as the previous one left it. `busy` when another instance holds the lock.
   */
  async function underLock<T>(keys: Keys, work: () => Promise<T>): Promise<T | 'busy'> {
    const token = `${instanceId}:${lockSequence++}`;
    if ((await redis.set(keys.lock, token, 'PX', LOCK_MS, 'NX')) !== 'OK') return 'busy';
    try {
      return await work();
    } finally {
      await redis.quotaReleaseLock(keys.lock, token);
    }
  }

  async function seedCounter(keys: Keys, accountId: string, period: string) {
    await redis.quotaSeedCounter(keys.counter, await store.readQuotaCommitted(accountId, period), keys.expireAtMs);
  }

  /**
   * Hold a block in the store with its own atomic check (against the plan and status the store holds
   * now), then hand the units to the gate. Returns the store's count, and whether it had room.
   */
  async function reserve(keys: Keys, input: QuotaAdmitInput, card: { plan: string; limit: number }) {
    // Fresh under the lock: the reservation that held it before may already have made room.
    const [usedNow, grantedNow] = (await redis.hmget(keys.counter, 'used', 'granted')).map(Number) as [number, number];
    if (usedNow + input.weight <= grantedNow) return { hadRoom: true, storeUsed: grantedNow };
    const want = Math.max(reservationBlock(card.limit), demand.get(keys.counter) ?? input.weight);
    const units = Math.max(input.weight, Math.min(want, card.limit - grantedNow));
    let admission = await store.holdQuota({ ...input, weight: units });
    let reserved = admission.admitted ? units : 0;
    const room = admission.limit - admission.used;
    if (!admission.admitted && admission.status === 'active' && room >= input.weight) {
      // Others reserved or counted meanwhile: take what is left.
      admission = await store.holdQuota({ ...input, weight: Math.min(units, room) });
      reserved = admission.admitted ? Math.min(units, room) : 0;
    }
    if (admission.plan !== card.plan || admission.limit !== card.limit || admission.status !== 'active') {
      // The card is stale (a change Redis was not told about): the next step reads the store again.
      await redis.quotaForgetCard(keys.card, keys.generation, GENERATION_KEEP_MS);
    }
    await redis.quotaApplyReservation(keys.counter, admission.used, reserved, keys.expireAtMs);
    return { hadRoom: reserved > 0, storeUsed: admission.used };
  }

  /** One script call: the quota alone, or with `whole` the request's slot and window too. */
  async function ask(keys: Keys, weight: number, whole: WholeRequest | undefined): Promise<RequestReply> {
    if (!whole) return redis.quotaAdmit(keys.card, keys.counter, keys.generation, weight);
    return redis.quotaAdmitRequest(keys.card, keys.counter, keys.generation, whole.leases, whole.window, weight, ...whole.args);
  }

  async function admitThroughGate(input: QuotaAdmitInput, keys: Keys, whole: WholeRequest | undefined): Promise<QuotaDecision> {
    const { accountId, period, weight } = input;
    const notCounted = { refund: async () => undefined };
    let storeFull: { storeUsed: number } | undefined;
    for (let step = 0; step < MAX_STEPS; step++) {
      const asked = Date.now();
      const reply = await ask(keys, weight, whole);
      const [outcome, plan, limit, used, generation] = reply;
      switch (outcome) {
        case 'admitted': {
          settlements.add(accountId, period, weight);
          const refund = () => refundInGate(keys.counter, accountId, period, weight);
          if (!whole) return { plan, status: 'active', admitted: true, used, limit, refund };
          leases.hold(whole.leaseMember, whole.leases, Date.now() - asked);
          const alongside = alongsideOf(reply, whole, () => leases.giveBack(whole.leaseMember));
          return { plan, status: 'active', admitted: true, used, limit, refund, alongside };
        }
        case 'in-flight-full':
        case 'window-full':
          // Refused by the slot or the window, so not counted: the stage after the quota's refuses it, and
          // the pipeline's refund (which gives nothing back here) takes the weight off the reported count.
          return { plan, status: 'active', admitted: true, used: used + weight, limit, ...notCounted, alongside: alongsideOf(reply, whole!) };
        case 'rejected':
          return { plan, status: 'active', admitted: false, used, limit, ...notCounted };
        case 'inactive':
          return { plan, status: 'inactive', admitted: false, used, limit, ...notCounted };
        case 'card-missing':
          await once(`card:${keys.card}`, () => fillCard(keys, accountId, generation, input.limitsByPlan));
          break;
        case 'counter-missing':
          if ((await once(`seed:${keys.counter}`, () => underLock(keys, () => seedCounter(keys, accountId, period)))) === 'busy') await lockWait(step);
          break;
        case 'needs-reservation': {
          // The store had no room for this request's weight and the gate has none left: the units still
          // unaccounted for are held for requests under way elsewhere, so this one is over the limit.
          if (storeFull) return { plan, status: 'active', admitted: false, used: Math.max(used, storeFull.storeUsed), limit, ...notCounted };
          const result = await once(`reserve:${keys.counter}`, () => underLock(keys, () => reserve(keys, input, { plan, limit })));
          if (result === 'busy') {
            // Another instance is reserving: its units are about to arrive in the shared counter.
            await lockWait(step);
            break;
          }
          // A reservation shared with a heavier request, or outrun by another instance, may have failed
          // while room for this one is left: then the next step reserves again.
          if (!result.hadRoom && result.storeUsed + weight > limit) storeFull = result;
          break;
        }
      }
    }
    return admitInStore(input);
  }

  function undo(keys: Keys, weight: number, whole: WholeRequest): void {
    redis.quotaUndoAdmitRequest(keys.counter, whole.leases, whole.window, weight, whole.leaseMember, whole.windowMember).catch(() => undefined);
  }

  async function refundInGate(counter: string, accountId: string, period: string, weight: number): Promise<void> {
    await redis.quotaRefund(counter, weight);
    settlements.add(accountId, period, -weight);
  }

  return {
    kind: 'redis-gate',
    status: (): QuotaLedgerStatus =>
      availability.outage === undefined ? { backend: 'redis-gate' } : { backend: 'store-fallback', reason: availability.outage },

    async admit(input, alongside?: AlongsideQuota) {
      await connected;
      if (redis.status !== 'ready') {
        availability.down(`redis not connected (${redis.status})`);
        return admitInStore(input);
      }
      if (storeDown) {
        // Fail closed until the store answers again (within one probe interval); then straight back to the gate.
        await answersWithin(store.ping(), probeMs);
        storeDown = false;
      }
      const keys = keysOf(input.accountId, input.period);
      const { counter } = keys;
      demand.set(counter, (demand.get(counter) ?? 0) + input.weight);
      // For one window after an outage the limiters decide the slot and the window themselves: Redis may
      // have come back empty, and the per-minute limiter then also checks this instance's own log.
      const whole =
        alongside && !availability.returnedWithin(RATE_WINDOW_MS) ? wholeRequest(prefix, input.accountId, alongside, leaseMs, `${instanceId}:${requestSequence++}`) : undefined;
      try {
        const decision = await admitThroughGate(input, keys, whole);
        availability.up();
        return decision;
      } catch (error) {
        if (error instanceof StoreUnavailableError) storeDown = true;
        if (error instanceof StoreUnavailableError || error instanceof NotFoundInStoreError) throw error;
        // An answer that came too late may still have admitted: undo it, on the same connection, so
        // after it (this request is decided without Redis, and a stray slot would fill the cap for 30 s).
        if (whole) undo(keys, input.weight, whole);
        availability.failed(error);
        return admitInStore(input);
      } finally {
        const left = (demand.get(counter) ?? 0) - input.weight;
        if (left > 0) demand.set(counter, left);
        else demand.delete(counter);
      }
    },

    async peek(accountId, period, limitsByPlan) {
      const standing = await peekInStore(store, accountId, period, limitsByPlan);
      if (!standing || redis.status !== 'ready') return standing;
      try {
        const used = await redis.hget(keysOf(accountId, period).counter, 'used');
        return used === null ? standing : { ...standing, used: Number(used) };
      } catch {
        return standing;
      }
    },

    settle: () => settlements.flush(),

    async forgetAccount(accountId) {
      await connected;
      const keys = cardKeys(accountId);
      await redis.quotaForgetCard(keys.card, keys.generation, GENERATION_KEEP_MS);
    },

    async close() {
      availability.close();
      clearInterval(probe);
      await leases.close();
      await settlements.close();
      redis.disconnect();
    },
  };
}
