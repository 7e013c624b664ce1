/**
 * What the public pages promise about provider access, from this deployment's configuration: with managed
 * access off (the default) nobody's calls work until they add a provider key of their own, so the landing
 * page, sign-up and the quick start must not say "no provider key needed". With it on, the plans it covers
 * are named, and the sign-up plan says whether a new account is one of them.
 */
import type { RouterConfig } from '../config/types.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';

export interface ProviderAccessPromise {
  /** A new account (on the sign-up plan) can call models without adding a provider key. */
  signupIncluded: boolean;
  /** The name of the plan a new account starts on. */
  signupPlan: string;
  /** Names of the plans whose calls the operator's provider accounts serve; empty with managed access off. */
  includedPlans: readonly string[];
  /** The providers a person can add a key for, as one readable list ("OpenAI, Anthropic or Gemini"). */
  providerNames: string;
}

export function providerAccessPromise(config: Pick<RouterConfig, 'plans' | 'providers' | 'server'>, managed: Pick<ManagedAccessStatus, 'active' | 'plans'>): ProviderAccessPromise {
  const included = managed.active ? managed.plans : [];
  const names = [...new Set(config.providers.providers.map((provider) => provider.name))];
  return {
    signupIncluded: included.includes(config.server.app.signupPlan),
    signupPlan: config.plans.find((plan) => plan.id === config.server.app.signupPlan)?.name ?? config.server.app.signupPlan,
    includedPlans: config.plans.filter((plan) => included.includes(plan.id)).map((plan) => plan.name),
    providerNames: names.length <= 1 ? (names[0] ?? 'your provider') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`,
  };
}
