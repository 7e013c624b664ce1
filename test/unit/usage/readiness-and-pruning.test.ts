import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import type { RouterConfig } from '../../../src/config/types.js';
import type { LedgerStore } from '../../../src/stores/ledger-store.js';
import { createSqliteLedgerStore } from '../../../src/stores/sqlite/create-sqlite-ledger-store.js';
import { startLedgerPruner } from '../../../src/usage/ledger-pruner.js';
import { managedAccessFor } from '../../../src/usage/open-usage.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { silentLogger } from '../../e2e/router-harness.js';

/** The shipped configuration with managed access asked for and the pro plan capped. */
function resellableConfig(change: (config: any) => void = () => undefined): RouterConfig {
  const config = structuredClone({ ...loadConfig('config', {}) }) as any;
  config.providers = { ...config.providers, managedAccess: { enabled: true } };
  config.plans = config.plans.map((plan: any) => (plan.id === 'pro' ? { ...plan, managedSpendCapUsd: 20 } : plan));
  change(config);
  return config;
}

const checks = (config: RouterConfig, ledger: { live: boolean; detail: string }) =>
  Object.fromEntries(managedAccessFor(config, ledger).checks.map((check) => [check.name, [check.ok, check.detail]]));

describe('managed-access readiness of the ledger and spend metering', () => {
  const live = { live: true, detail: 'answered' };

  it('is active with a live ledger and every reachable model priced', () => {
    expect(managedAccessFor(resellableConfig(), live)).toMatchObject({ active: true, plans: ['pro'] });
  });

  it('stays off when the ledger did not answer, saying why in both checks', () => {
    const status = managedAccessFor(resellableConfig(), { live: false, detail: 'the usage ledger is off (ledger.enabled: false)' });
    expect(status.active).toBe(false);
    expect(checks(resellableConfig(), { live: false, detail: 'the usage ledger is off (ledger.enabled: false)' })).toMatchObject({
      usage_ledger: [false, 'the usage ledger is off (ledger.enabled: false)'],
      spend_metering: [false, 'spend is metered from the usage ledger, which is not live'],
    });
  });

  it('stays off while a resellable plan can reach a model without a price, naming it', () => {
    const unpriced = resellableConfig((config) => {
      config.providers.providers = config.providers.providers.map((provider: any) => (provider.id === 'gemini' ? { ...provider, prices: {} } : provider));
    });
    expect(managedAccessFor(unpriced, live).active).toBe(false);
    expect(checks(unpriced, live).spend_metering).toEqual([false, 'models without a price in providers.yaml: gemini/gemini-2.5-pro, gemini/gemini-embedding-001']);
  });

  it('also counts the concrete models a resellable plan allows: an unpriced one keeps it off, a denied one does not', () => {
    const withModel = (deny: string[]) =>
      resellableConfig((config) => {
        config.catalog = { ...config.catalog, concreteModels: [...config.catalog.concreteModels, { id: 'acme/unpriced-1', name: 'Unpriced', description: '', contextLength: 8000, created: 1, order: 'tiers', endpoints: [{ provider: 'openai', model: 'acme-unpriced' }] }] };
        config.plans = config.plans.map((plan: any) => (plan.id === 'pro' ? { ...plan, models: { allow: ['*'], deny } } : plan));
      });
    expect(managedAccessFor(withModel([]), live).active).toBe(false);
    expect(checks(withModel([]), live).spend_metering).toEqual([false, 'models without a price in providers.yaml: openai/acme-unpriced']);
    expect(managedAccessFor(withModel(['acme/*']), live).active).toBe(true);
  });
});

describe('the ledger pruner', () => {
  let store: LedgerStore;
  beforeEach(async () => {
    store = createSqliteLedgerStore({ path: ':memory:', now: () => '2026-11-15T00:00:00.000Z' });
    await store.migrate();
  });
  afterEach(() => store.close());

  it('deletes raw records older than the retention and keeps the rest', async () => {
    const old = ledgerRecord({ startedAt: '2026-10-15T23:59:59.999Z' });
    const kept = ledgerRecord({ startedAt: '2026-10-16T00:00:00.000Z' });
    await store.writeBatch([old, kept]);
    const pruner = startLedgerPruner({ store, retentionDays: 30, clock: new ManualClock(Date.parse('2026-11-15T00:00:00.000Z')), logger: silentLogger(), firstRunMs: 60_000 });
    try {
      expect(await pruner.run()).toEqual({ records: 1, reservations: 0 });
      expect(await store.findRecords({ requestId: old.requestId })).toEqual([]);
      expect(await store.findRecords({ requestId: kept.requestId })).toEqual([kept]);
    } finally {
      pruner.stop();
    }
  });
});
