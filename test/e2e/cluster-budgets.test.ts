/**
 * Budgets in cluster mode (`listen.workers: 2`): the built router in its own process, two workers sharing
 * one listener and one SQLite file. Each worker holds a request's estimate against the workspace's budget
 * in an IMMEDIATE transaction on the shared file, so concurrent requests through both workers never spend
 * more than the budget plus one request's cost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/stores/sqlite/create-sqlite-store.js';
import { systemClock } from '../../src/core/clock.js';
import { planLimits, postChat } from './router-harness.js';
import { jsonLogLines, startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';

/** 10 prompt and 20 completion tokens of gpt-4.1, what every fake answer costs. */
const COST = 10 * 2000 + 20 * 8000;
const LIMIT = 2_000_000;

describe('budgets in cluster mode (a spawned router with two workers on SQLite)', { timeout: 150_000 }, () => {
  let router: SpawnedRouter | undefined;
  afterEach(async () => {
    await router?.close();
    router = undefined;
  });

  it('spends at most the budget plus one request out of 80 concurrent requests through both workers', async () => {
    router = await startSpawnedRouter({
      readyTimeoutMs: 40_000,
      env: { ROUTER_WORKERS: '2' },
      patch: {
        plans: planLimits({ pro: { monthlyRequests: 1_000_000, requestsPerMinute: 100_000, maxConcurrentRequests: 1000 } }),
        server: (doc: any) => void (doc.ledger = { flushIntervalMs: 100 }),
      },
    });
    const spawned = router;
    await until(() => jsonLogLines(spawned.output()).some((line) => String(line.msg).includes('with 2 workers')), 40_000);
    const { accountId, key } = await router.account('pro');
    const store = createSqliteStore({ path: join(router.dataDir, 'router.db'), clock: systemClock });
    try {
      const workspace = await store.getDefaultWorkspace(accountId);
      await store.setBudget({ accountId, scope: 'workspace', scopeId: workspace.id, limitNanoUsd: LIMIT, period: 'month', includeByok: true }, 'test');
      router.fakes.openai.setReply({ latencyMs: 60 });
      const statuses = await Promise.all(Array.from({ length: 80 }, () => postChat(spawned.baseURL, key, { max_tokens: 20 }).then((response) => response.status)));
      const served = statuses.filter((status) => status === 200).length;
      expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
      expect(served).toBeGreaterThan(0);
      expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(0);
      // Once both workers' ledgers flushed: every served request metered, every hold released.
      let spent = -1;
      for (let attempt = 0; attempt < 50; attempt++) {
        spent = await store.readBudgetSpend(accountId, 'workspace', workspace.id, 'month', new Date().toISOString());
        if (spent === served * COST) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(spent).toBe(served * COST);
      // Each admission saw spent + held below the limit, and every hold is at least its request's cost.
      expect(spent).toBeLessThan(LIMIT + COST);
      expect(router.fakes.openai.requests).toHaveLength(served);
    } finally {
      await store.close();
    }
  });
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
