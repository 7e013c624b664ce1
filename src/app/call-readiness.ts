/**
 * Whether an account can call anything yet, for onboarding and the playground: with managed access on
 * for its plan the operator's provider accounts serve it; otherwise it needs a provider key of its own
 * (routing answers 403 no_provider_access without one).
 */
import type { Account } from '../stores/store.js';
import type { WebDeps } from './web-deps.js';

export interface CallReadiness {
  /** The operator's provider accounts serve this plan (managed access). */
  managed: boolean;
  /** Providers the account has its own key for. */
  providerKeys: readonly string[];
  ready: boolean;
}

export async function callReadiness(deps: Pick<WebDeps, 'managedAccess' | 'store'>, account: Account): Promise<CallReadiness> {
  const managed = deps.managedAccess.active && deps.managedAccess.plans.includes(account.plan);
  const providerKeys = (await deps.store.listProviderKeys(account.id)).map((record) => record.providerId);
  return { managed, providerKeys, ready: managed || providerKeys.length > 0 };
}
