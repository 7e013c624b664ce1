/**
 * The quota ledger of one store: each admission is the store's own atomic check-and-increment, which
 * reads the account's plan and status in the same step, so there is nothing to cache or forget.
 */
import type { QuotaLedger } from './quota-ledger.js';
import type { Store } from './store.js';

export function createStoreQuotaLedger(store: Store): QuotaLedger {
  return {
    kind: 'store',
    status: () => ({ backend: 'store' }),
    async admit(input) {
      const admission = await store.admitQuota(input);
      return { ...admission, refund: () => store.refundQuota(input.accountId, input.period, input.weight) };
    },
    peek: (accountId, period, limitsByPlan) => peekInStore(store, accountId, period, limitsByPlan),
    settle: async () => undefined,
    forgetAccount: async () => undefined,
    close: async () => undefined,
  };
}

export async function peekInStore(store: Store, accountId: string, period: string, limitsByPlan: Readonly<Record<string, number>>) {
  const account = await store.getAccount(accountId);
  if (!account) return null;
  const used = await store.readQuotaCommitted(accountId, period);
  return { plan: account.plan, status: account.status, used, limit: limitsByPlan[account.plan] ?? 0 };
}
