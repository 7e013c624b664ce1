/**
 * GET /api/v1/keys asks the stores a fixed number of questions per page, whatever the number of keys:
 * one listing, then each figure for the whole page at once (spend from the ledger, budgets and their
 * spend, per-key limits), on SQLite and on PostgreSQL. Counted at the store interfaces (each call is
 * one query or, on SQLite, a few in-process statements); the time of one listing of 100 keys is printed
 * for the record, not asserted.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRouter } from './router-harness.js';
import { startRouterOn, usageBackends, type UsageBackend } from './usage-backends.js';

const UA = { 'user-agent': 'router-tests/1.0' };

/** Counts every call of the object's methods (own and inherited) from now on. */
function countCalls(target: object, counter: { calls: number }): void {
  const names = new Set<string>();
  for (let proto: object | null = target; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function') names.add(name);
  }
  for (const name of names) {
    const original = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
    (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counter.calls++;
      return original.apply(target, args);
    };
  }
}

describe.each(usageBackends('keylist'))('GET /api/v1/keys on %s', { timeout: 120_000 }, (_name, makeBackend) => {
  let backend: UsageBackend;
  let router: TestRouter;
  const counter = { calls: 0 };

  beforeAll(async () => {
    backend = makeBackend();
    router = await startRouterOn(backend);
    countCalls(router.server.runtime.store, counter);
    countCalls(router.server.runtime.usage.store, counter);
  });
  afterAll(async () => {
    await router?.close();
    await backend?.cleanUp();
  });

  /** An organization with `count` keys besides its management key, every other one with a spend limit. */
  async function organization(count: number): Promise<string> {
    const { runtime } = router.server;
    const account = await runtime.store.createAccount({ email: `keys-${count}-${Math.random().toString(36).slice(2)}@example.com`, plan: 'pro' }, 'test');
    const management = (await runtime.keys.issue(account.id, 'provisioning', 'test', { kind: 'management' })).key;
    for (let n = 0; n < count; n++) {
      const response = await fetch(`${router.url}/api/v1/keys`, {
        method: 'POST',
        headers: { ...UA, authorization: `Bearer ${management}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `key ${n}`, ...(n % 2 === 0 ? { limit: 5, limit_reset: 'monthly' } : {}) }),
      });
      expect(response.status).toBe(201);
    }
    return management;
  }

  async function listing(management: string): Promise<{ calls: number; ms: number; keys: number }> {
    const before = counter.calls;
    const started = performance.now();
    const response = await fetch(`${router.url}/api/v1/keys`, { headers: { ...UA, authorization: `Bearer ${management}` } });
    const ms = performance.now() - started;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: unknown[] };
    return { calls: counter.calls - before, ms, keys: body.data.length };
  }

  it('makes as many store calls for 100 keys as for 5', async () => {
    const few = await listing(await organization(5));
    const many = await organization(100);
    await listing(many); // warm: statements prepared, connections open
    const runs = [];
    for (let n = 0; n < 5; n++) runs.push(await listing(many));
    const best = Math.min(...runs.map((run) => run.ms));
    console.log(`GET /api/v1/keys, ${runs[0]!.keys} keys on ${_name}: ${runs[0]!.calls} store calls (${few.calls} for ${few.keys} keys), best of 5 ${best.toFixed(1)} ms`);
    expect(runs[0]!.keys).toBe(100);
    expect(runs[0]!.calls).toBe(few.calls);
  });
});
