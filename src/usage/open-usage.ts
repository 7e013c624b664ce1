/**
 * Opens the usage ledger for a router: its store (on the same database as the main store, through its
 * own connection), the writer, the background pruner, and a live check of both the record and the
 * spend-meter paths, which the managed-access readiness checks read.
 */
import type { ConsolaInstance } from 'consola';
import type { RouterConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/describe-error.js';
import { quotaPeriod } from '../core/quota-period.js';
import type { LedgerStore } from '../stores/ledger-store.js';
import { openLedgerStore } from '../stores/open-ledger-store.js';
import { startLedgerPruner } from './ledger-pruner.js';
import { evaluateManagedAccess, type ManagedAccessStatus } from '../routing/managed-access.js';
import { concreteModelRoute } from '../config/concrete-model-route.js';
import { planAllowsModel } from '../config/model-globs.js';
import { createPriceBook, unpricedModelsForPlans, type PriceBook } from './model-prices.js';
import { UsageLedger, type UsageLedgerOptions } from './usage-ledger.js';

/** Managed access as the readiness checks decide it for this configuration and ledger. */
export function managedAccessFor(config: RouterConfig, ledger: { live: boolean; detail: string }): ManagedAccessStatus {
  return evaluateManagedAccess({
    requested: config.providers.managedAccess.enabled,
    plans: config.plans,
    durableStore: !config.server.storage.endsWith(':memory:'),
    ledger,
    unpricedForResale: (planIds) =>
      unpricedModelsForPlans(planIds, {
        plans: config.plans,
        routes: config.routes,
        providers: config.providers.providers,
        concreteModels: { routes: config.catalog.concreteModels.map(concreteModelRoute), allows: planAllowsModel },
      }),
  });
}

export interface UsageRuntime {
  store: LedgerStore;
  /** The writer; null when `ledger.enabled` is false. */
  ledger: UsageLedger | null;
  prices: PriceBook;
  /** Whether the ledger answered at start, for the managed-access readiness checks. */
  liveness: { live: boolean; detail: string };
  close(): Promise<void>;
}

export interface OpenUsageOptions {
  clock: Clock;
  logger: ConsolaInstance;
  /** Wraps the opened store (metrics timing). */
  wrapStore?: (store: LedgerStore) => LedgerStore;
  hooks?: Pick<UsageLedgerOptions, 'onFlush' | 'onDrop'>;
}

export async function openUsage(config: RouterConfig, options: OpenUsageOptions): Promise<UsageRuntime> {
  const settings = config.server.ledger;
  const opened = await openLedgerStore(config.server.storage, options.clock);
  const store = options.wrapStore ? options.wrapStore(opened) : opened;
  await store.migrate();
  const liveness = settings.enabled ? await checkLedgerLive(store, options.clock) : { live: false, detail: 'the usage ledger is off (ledger.enabled: false)' };
  const ledger = settings.enabled
    ? new UsageLedger({ store, ...settings, clock: options.clock, logger: options.logger, ...options.hooks })
    : null;
  const pruner = settings.enabled ? startLedgerPruner({ store, retentionDays: settings.retentionDays, clock: options.clock, logger: options.logger }) : undefined;
  return {
    store,
    ledger,
    prices: createPriceBook(config.providers.providers, config.pricing.serverToolPrices),
    liveness,
    async close() {
      pruner?.stop();
      await ledger?.close();
      await store.close();
    },
  };
}

/** Reads both paths the ledger serves (records and the spend meter), so "live" means answering, not configured. */
export async function checkLedgerLive(store: LedgerStore, clock: Clock): Promise<{ live: boolean; detail: string }> {
  try {
    await store.ping();
    const now = clock.now();
    await store.readSpend('acct_readiness_check', quotaPeriod(now).key, new Date(now).toISOString());
    return { live: true, detail: `records and the spend meter answered in the ${store.kind} store` };
  } catch (error) {
    return { live: false, detail: `the ledger's tables did not answer (${describeError(error)})` };
  }
}
