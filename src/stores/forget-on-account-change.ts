/**
 * Wraps a store so that every plan change and deactivation, once committed, also drops what the quota
 * ledger caches about the account: the next request on any instance reads the new plan or status.
 * Applied by openQuotaLedger, which `router serve` and the CLI both use, so every way of changing an
 * account goes through it.
 */
import type { QuotaLedger } from './quota-ledger.js';
import type { Store } from './store.js';

/**
 * `onForgetFailed` hears about a change that is committed but could not be announced (Redis away): the
 * cached card then expires on its own, within the ledger's card TTL.
 */
export function forgetOnAccountChange(store: Store, ledger: QuotaLedger, onForgetFailed: (accountId: string, error: unknown) => void): Store {
  async function announce(accountId: string): Promise<void> {
    try {
      await ledger.forgetAccount(accountId);
    } catch (error) {
      onForgetFailed(accountId, error);
    }
  }
  return {
    ...store,
    async setAccountPlan(id, plan, actor) {
      const account = await store.setAccountPlan(id, plan, actor);
      await announce(id);
      return account;
    },
    // Billing (webhooks and the sweep) changes plans through here too, so paid plans apply at once.
    async saveBillingChange(change) {
      const result = await store.saveBillingChange(change);
      if (result.outcome === 'applied' && result.planChanged) await announce(change.accountId);
      return result;
    },
    async deactivateAccount(id, actor) {
      const account = await store.deactivateAccount(id, actor);
      await announce(id);
      return account;
    },
  };
}
