/**
 * The organization settings cache the pipeline reads budgets and guardrails through
 * (accounts/account-controls.ts): cached for the TTL; read afresh once for a key made after (or about
 * when) the cached copy was read, since that copy cannot know the key's own budget; a `forget` during a
 * read keeps that read's stale result out of the cache.
 */
import { describe, expect, it } from 'vitest';
import { AccountControls } from '../../../src/accounts/account-controls.js';
import type { BudgetRecord } from '../../../src/stores/budget-store.js';
import type { Store } from '../../../src/stores/store.js';

const TTL_MS = 5000;

function manualClock(startIso: string) {
  let now = Date.parse(startIso);
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A store holding one organization's budgets, counting reads; `hold` makes the next read wait to be released. */
function fakeStore() {
  const budgets: BudgetRecord[] = [];
  let reads = 0;
  let gate: Promise<void> | undefined;
  const store = {
    listWorkspaces: async () => [],
    listGuardrails: async () => [],
    listMembers: async () => [],
    listBudgets: async () => {
      reads++;
      const copy = [...budgets];
      await gate;
      return copy;
    },
  } as unknown as Store;
  return {
    store,
    budgets,
    reads: () => reads,
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

const budgetOf = (keyId: string): BudgetRecord => ({ accountId: 'acct_1', scope: 'key', scopeId: keyId, limitNanoUsd: 1000, period: 'day', includeByok: true, createdAt: '', updatedAt: '' });
const subject = (keyId: string, keyCreatedAt?: string) => ({ accountId: 'acct_1', keyId, workspaceId: null, personId: null, ...(keyCreatedAt ? { keyCreatedAt } : {}) });

describe('the organization settings cache', () => {
  it('serves an old key from the cache for the TTL', async () => {
    const clock = manualClock('2026-11-25T10:00:00.000Z');
    const fake = fakeStore();
    const controls = new AccountControls(fake.store, clock, TTL_MS);
    for (let i = 0; i < 5; i++) await controls.forRequest(subject('key_old', '2026-11-01T00:00:00.000Z'));
    expect(fake.reads()).toBe(1);
    clock.advance(TTL_MS + 1);
    await controls.forRequest(subject('key_old', '2026-11-01T00:00:00.000Z'));
    expect(fake.reads()).toBe(2);
  });

  it('reads once more for a key younger than the cached copy, and finds its budget; then the cache serves it', async () => {
    const clock = manualClock('2026-11-25T10:00:00.000Z');
    const fake = fakeStore();
    const controls = new AccountControls(fake.store, clock, TTL_MS);
    await controls.forRequest(subject('key_old', '2026-11-01T00:00:00.000Z'));
    clock.advance(1000);
    // Made on another instance, with its limit, after this one cached the organization.
    fake.budgets.push(budgetOf('key_new'));
    const first = await controls.forRequest(subject('key_new', new Date(clock.now()).toISOString()));
    expect(first.budgets.map((budget) => budget.record.scopeId)).toEqual(['key_new']);
    expect(fake.reads()).toBe(2);
    for (let i = 0; i < 5; i++) await controls.forRequest(subject('key_new', new Date(clock.now()).toISOString()));
    await controls.forRequest(subject('key_old', '2026-11-01T00:00:00.000Z'));
    expect(fake.reads()).toBe(2);
  });

  it('lets a burst of a new key’s first requests share one read', async () => {
    const clock = manualClock('2026-11-25T10:00:00.000Z');
    const fake = fakeStore();
    const controls = new AccountControls(fake.store, clock, TTL_MS);
    fake.budgets.push(budgetOf('key_new'));
    const release = fake.hold();
    const burst = Array.from({ length: 10 }, () => controls.forRequest(subject('key_new', new Date(clock.now()).toISOString())));
    release();
    const answers = await Promise.all(burst);
    expect(answers.every((answer) => answer.budgets.length === 1)).toBe(true);
    expect(fake.reads()).toBe(1);
  });

  it('keeps a read begun before `forget` out of the cache', async () => {
    const clock = manualClock('2026-11-25T10:00:00.000Z');
    const fake = fakeStore();
    const controls = new AccountControls(fake.store, clock, TTL_MS);
    const release = fake.hold();
    const stale = controls.forRequest(subject('key_a', '2026-11-01T00:00:00.000Z'));
    // A budget set on this instance while the read was under way.
    fake.budgets.push(budgetOf('key_a'));
    controls.forget('acct_1');
    release();
    await stale;
    const next = await controls.forRequest(subject('key_a', '2026-11-01T00:00:00.000Z'));
    expect(next.budgets.map((budget) => budget.record.scopeId)).toEqual(['key_a']);
  });
});
