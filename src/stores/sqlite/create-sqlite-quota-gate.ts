/**
 * The monthly quota gate of an SQLite store: the embedded counterpart of the Redis gate
 * (stores/redis/create-redis-quota-gate.ts). Admissions are decided in this process's memory, from
 * blocks of units the store holds for it (`holdQuota`: the store's own atomic check against
 * `used + held <= limit`, so no number of processes sharing the file can hold past the limit), and
 * settled into the exact `used` column every second. A request therefore costs no SQLite write; one
 * hold serves up to a block of requests.
 *
 * - Exact: every unit is held before it is admitted, and each process admits only the units it holds.
 *   A crashed process leaves its unused and unsettled units in `held`, counted as used, never twice.
 * - Small, adaptive blocks: 1% of the limit (1 to 100 units, or what the requests waiting here need), but
 *   never more than an eighth of what the limit has left, so processes sharing the file reach a small
 *   limit exactly; a block that no longer fits shrinks to this request's own need. A grant no request used
 *   for a whole settle interval goes back to the store, so an idle process strands nothing.
 * - Plan changes: a change made through forgetOnAccountChange (this process: `router serve`, the app)
 *   drops the account's card and grants at once; a change committed by any other connection to the file
 *   (the CLI, another worker, the usage ledger's connection) moves SQLite's `data_version`, which each
 *   admission compares (one in-memory pragma, no I/O), and the account is read again before its next
 *   admission. Every hold also returns the plan the store holds now. Changes apply to the next request.
 */
import type { QuotaDecision, QuotaLedger, QuotaStanding } from '../quota-ledger.js';
import { reservationBlock } from '../quota-reservation.js';
import { NotFoundInStoreError, type AccountStatus, type QuotaAdmission, type QuotaAdmitInput, type Store } from '../store.js';
import type { DataVersion } from './sqlite-data-version.js';
import type { MaybePromise } from '../../core/maybe-promise.js';

export interface SqliteQuotaGateOptions {
  store: Store;
  /** The store's `PRAGMA data_version`: moves whenever another connection commits to the file. */
  dataVersion: DataVersion;
  /** How often admissions are settled into `used` and idle grants given back (default 1 s). */
  settleMs?: number;
}

interface Card {
  plan: string;
  status: AccountStatus;
  /** dataVersion() when the card was read or last confirmed. */
  version: number;
}

/** Units the store holds for this process, for one account and period. */
interface Grant {
  readonly accountId: string;
  readonly period: string;
  /** Held in the store and not admitted yet. */
  available: number;
  /** Admitted since the last settlement (negative after refunds of settled ones). */
  unsettled: number;
  /** The store's used + held after this process's last hold: the base of the counts reported. */
  committed: number;
  /** Admitted within the current settle interval (an idle grant is given back). */
  busy: boolean;
  /** Weight of admissions waiting for the hold under way. */
  waiting: number;
  holding: Promise<unknown> | undefined;
  /** Given back to the store: refunds of its admissions go to the store's `used`. */
  detached: boolean;
}

/** What a detached grant leaves for the store: `settle` moves from held to used, `release` leaves held. */
interface WriteBack {
  accountId: string;
  period: string;
  settle: number;
  release: number;
}

/** Never hold more than this share of what the limit has left, so other processes sharing the file find room. */
const HEADROOM_SHARE = 8;
/**
 * Holds of its own, and holds of others waited for, per admission before the store's own admission
 * decides instead (each is progress by someone; the bounds only stop a request that keeps losing races).
 */
const MAX_STEPS = 8;
const MAX_QUEUED = 64;
/** Settle intervals a refused request waits at most for units other processes may give back. */
const MAX_WAITS = 2;

const limitOf = (limitsByPlan: Readonly<Record<string, number>>, plan: string): number =>
  Object.hasOwn(limitsByPlan, plan) ? (limitsByPlan[plan] ?? 0) : 0;

export function createSqliteQuotaGate(options: SqliteQuotaGateOptions): QuotaLedger {
  const { store, dataVersion } = options;
  const settleMs = options.settleMs ?? 1000;
  const cards = new Map<string, Card>();
  const grants = new Map<string, Grant>();
  /** Write-backs that failed (store busy): retried every interval and on close. */
  let failed: WriteBack[] = [];
  const notCounted = async (): Promise<void> => undefined;

  const keyOf = (accountId: string, period: string): string => `${accountId}\n${period}`;

  /**
   * dataVersion read at most once per turn of the event loop: the pragma starts a read transaction on
   * the file (a lock and a look at the WAL index: 1.9% of the router's busy time when read for every
   * request at 16 connections). Requests handled in one turn were found by the same poll, so a reading
   * taken in that turn normally follows their arrival; at worst a change lands between a reading and a
   * request of the same turn, a window of one loop turn (well under a millisecond when not overloaded).
   */
  let versionThisTurn: number | undefined;
  function currentVersion(): number {
    if (versionThisTurn === undefined) {
      versionThisTurn = dataVersion.current();
      setImmediate(() => (versionThisTurn = undefined));
    }
    return versionThisTurn;
  }

  /** The account's card when nothing was committed to the file since it was read: usable as it is. */
  function currentCard(accountId: string): Card | undefined {
    const cached = cards.get(accountId);
    return cached?.version === currentVersion() ? cached : undefined;
  }

  async function cardOf(accountId: string): Promise<Card> {
    const current = currentCard(accountId);
    if (current) return current;
    const version = currentVersion();
    const cached = cards.get(accountId);
    const account = await store.getAccount(accountId);
    if (!account) throw new NotFoundInStoreError('account', accountId);
    if (cached && cached.plan === account.plan && cached.status === account.status) {
      cached.version = version;
      return cached;
    }
    // Another connection changed the plan or status: units held under the old plan go back first.
    if (cached) await writeBack(detachAccount(accountId));
    const card = { plan: account.plan, status: account.status, version };
    cards.set(accountId, card);
    return card;
  }

  function grantOf(accountId: string, period: string): Grant {
    const key = keyOf(accountId, period);
    let grant = grants.get(key);
    if (!grant) {
      grant = { accountId, period, available: 0, unsettled: 0, committed: 0, busy: false, waiting: 0, holding: undefined, detached: false };
      grants.set(key, grant);
    }
    return grant;
  }

  /** Take a grant out of use (synchronously, so no admission can draw on it meanwhile). */
  function detach(grant: Grant): WriteBack {
    grants.delete(keyOf(grant.accountId, grant.period));
    grant.detached = true;
    const back = { accountId: grant.accountId, period: grant.period, settle: grant.unsettled, release: grant.available };
    grant.unsettled = 0;
    grant.available = 0;
    return back;
  }

  function detachAccount(accountId: string): WriteBack[] {
    return [...grants.values()].filter((grant) => grant.accountId === accountId).map(detach);
  }

  /** Settle, and give unused units back (held → used → refunded: the total never drops below the true count). */
  async function writeBack(backs: readonly WriteBack[]): Promise<void> {
    for (const back of backs) {
      let settled = false;
      try {
        const moved = back.settle + back.release;
        if (moved !== 0) await store.settleQuota(back.accountId, back.period, moved);
        settled = true;
        if (back.release > 0) await store.refundQuota(back.accountId, back.period, back.release);
      } catch {
        // Counted as used until the retry: conservative, never over the limit. A settled write-back owes only
        // the refund (settle −n, release n moves nothing and refunds n).
        failed.push(settled ? { ...back, settle: -back.release } : back);
      }
    }
  }

  /**
   * Settle what was admitted. On the interval's tick, also give back grants nobody used since the last
   * one; on close, give back everything.
   */
  async function settleAll(mode: 'settle' | 'tick' | 'close'): Promise<void> {
    if (mode === 'tick') {
      // A change another connection committed sends this process's grants of the account back within an
      // interval, even when no request of the account comes here: others may be waiting for those units.
      for (const accountId of new Set([...grants.values()].map((grant) => grant.accountId))) await cardOf(accountId).catch(() => undefined);
    }
    const backs = failed;
    failed = [];
    for (const grant of [...grants.values()]) {
      const idle = !grant.busy && grant.waiting === 0 && grant.holding === undefined;
      if (mode === 'close' || (mode === 'tick' && idle)) backs.push(detach(grant));
      else if (grant.unsettled !== 0) {
        backs.push({ accountId: grant.accountId, period: grant.period, settle: grant.unsettled, release: 0 });
        grant.unsettled = 0;
      }
      if (mode === 'tick') grant.busy = false;
    }
    return writeBack(backs);
  }

  /** One settlement at a time, in the order asked for. */
  let settling: Promise<void> = Promise.resolve();
  function settle(mode: 'settle' | 'tick' | 'close'): Promise<void> {
    const run = settling.then(() => settleAll(mode));
    settling = run.catch(() => undefined);
    return run;
  }

  const timer = setInterval(() => void settle('tick'), settleMs);
  timer.unref();

  function take(grant: Grant, input: QuotaAdmitInput, plan: string, limit: number): QuotaDecision {
    const { weight } = input;
    grant.available -= weight;
    grant.unsettled += weight;
    grant.busy = true;
    return {
      plan,
      status: 'active',
      admitted: true,
      used: grant.committed - grant.available,
      limit,
      refund: async () => {
        if (!grant.detached) {
          grant.available += weight;
          grant.unsettled -= weight;
          return;
        }
        await store.refundQuota(input.accountId, input.period, weight);
      },
    };
  }

  /**
   * Hold units for this request and those waiting with it: `held` when units were added to the grant,
   * `retry` when the account changed meanwhile, or the store's refusal (no room, or inactive).
   */
  async function hold(grant: Grant, input: QuotaAdmitInput, card: Card, limit: number): Promise<'held' | 'retry' | QuotaAdmission> {
    const need = input.weight - grant.available;
    const block = Math.max(reservationBlock(limit), need + grant.waiting);
    // What the limit has left now (one read; holds are rare), so blocks shrink as it runs out.
    const left = limit - (await store.readQuotaCommitted(input.accountId, input.period));
    const want = Math.max(need, Math.min(block, Math.floor(left / HEADROOM_SHARE)));
    let admission = await store.holdQuota({ ...input, weight: want });
    let held = admission.admitted ? want : 0;
    if (!admission.admitted && admission.status === 'active' && want > need && admission.limit - admission.used >= need) {
      // Less is left than the block: hold just this request's need.
      admission = await store.holdQuota({ ...input, weight: need });
      held = admission.admitted ? need : 0;
    }
    if (grant.detached) {
      // The account changed while the store answered: these units belong to no grant now.
      await writeBack([{ accountId: grant.accountId, period: grant.period, settle: 0, release: held }]);
      return 'retry';
    }
    grant.available += held;
    grant.committed = admission.used;
    if (admission.plan !== card.plan || admission.status !== card.status) {
      // The store knows a change this process has not seen yet: start again under the new plan.
      cards.set(input.accountId, { plan: admission.plan, status: admission.status, version: card.version });
      await writeBack(detachAccount(input.accountId));
      return 'retry';
    }
    return held > 0 ? 'held' : admission;
  }

  /**
   * Whether the units other processes hold (for admissions not settled yet, or grants of a plan that
   * just changed) could leave room for this request once they settle or give them back, which they do
   * within one interval. Only then is a refusal worth waiting for; a single process never waits.
   */
  async function othersMayMakeRoom(grant: Grant, input: QuotaAdmitInput, refusal: QuotaAdmission): Promise<boolean> {
    if (refusal.status !== 'active') return false;
    const used = await store.readQuota(input.accountId, input.period);
    // Units this process's grant has in `held`: unused ones, and admitted ones not settled yet (less refunds of settled ones).
    const ownHeld = grant.detached ? 0 : grant.available + grant.unsettled;
    const othersHeld = refusal.used - used - ownHeld;
    return othersHeld > 0 && refusal.limit - (refusal.used - othersHeld) >= input.weight;
  }

  /**
   * The usual admission, decided in memory without a promise: the account's card is current and active
   * and its grant holds enough units. Anything else goes through the store.
   */
  function admit(input: QuotaAdmitInput): MaybePromise<QuotaDecision> {
    const card = currentCard(input.accountId);
    if (card?.status === 'active') {
      const grant = grants.get(keyOf(input.accountId, input.period));
      if (grant && grant.available >= input.weight) return take(grant, input, card.plan, limitOf(input.limitsByPlan, card.plan));
    }
    return admitThroughStore(input);
  }

  async function admitThroughStore(input: QuotaAdmitInput): Promise<QuotaDecision> {
    let waits = 0;
    let queued = 0;
    for (let step = 0; step < MAX_STEPS && queued < MAX_QUEUED; ) {
      const card = await cardOf(input.accountId);
      const limit = limitOf(input.limitsByPlan, card.plan);
      if (card.status !== 'active') {
        const used = await store.readQuotaCommitted(input.accountId, input.period);
        return { plan: card.plan, status: card.status, admitted: false, used, limit, refund: notCounted };
      }
      const grant = grantOf(input.accountId, input.period);
      if (grant.available >= input.weight) return take(grant, input, card.plan, limit);
      if (grant.holding) {
        // Someone else's hold. Waiters count themselves out one by one as they resume, so the first one
        // that finds too little left holds enough for all those still behind it.
        queued++;
        grant.waiting += input.weight;
        await grant.holding.catch(() => undefined);
        grant.waiting -= input.weight;
        continue;
      }
      step++;
      const holding = hold(grant, input, card, limit);
      grant.holding = holding;
      const answer = await holding.finally(() => (grant.holding = undefined));
      if (answer === 'held' || answer === 'retry') continue;
      if (waits < MAX_WAITS && (await othersMayMakeRoom(grant, input, answer))) {
        waits++;
        await new Promise((resolve) => setTimeout(resolve, settleMs));
        continue;
      }
      return { ...answer, refund: notCounted };
    }
    // Others kept taking what this one held for: the store's own admission decides, still exact.
    const admission = await store.admitQuota(input);
    return { ...admission, refund: () => store.refundQuota(input.accountId, input.period, input.weight) };
  }

  return {
    kind: 'sqlite-gate',
    status: () => ({ backend: 'sqlite-gate' }),
    admit,

    async peek(accountId, period, limitsByPlan): Promise<QuotaStanding | null> {
      const account = await store.getAccount(accountId);
      if (!account) return null;
      const committed = await store.readQuotaCommitted(accountId, period);
      const unused = grants.get(keyOf(accountId, period))?.available ?? 0;
      return { plan: account.plan, status: account.status, used: committed - unused, limit: limitOf(limitsByPlan, account.plan) };
    },

    settle: () => settle('settle'),

    async forgetAccount(accountId) {
      cards.delete(accountId);
      await writeBack(detachAccount(accountId));
    },

    async close() {
      clearInterval(timer);
      await settle('close');
      cards.clear();
    },
  };
}
