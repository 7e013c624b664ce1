/**
 * Which provider credential an account's request may use. An account's own keys (BYOK) come first and
 * exclusively: an account that brought any key never falls back to operator keys. Operator keys are
 * used only when managed access is active and the account's plan is resellable. Decrypted credentials
 * are cached briefly (same bound as API keys), so a hot account costs no store read per request.
 */
import { createBoundedCache } from '../core/bounded-cache.js';
import type { ProviderConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import { openSecret } from '../core/secret-box.js';
import type { CredentialLookup, ResolvedCredential } from '../routing/failover.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { Store } from '../stores/store.js';

interface AccountCredentials {
  plan: string;
  /** The account brought keys of its own (even ones this instance cannot open): no operator fallback. */
  bringsOwnKeys: boolean;
  /** The account's credential per provider, made once per cache entry: a request looks its candidates up without an await each. */
  lookup: CredentialLookup;
}

export function createCredentialResolver(options: {
  store: Store;
  clock: Clock;
  secretKey: string | undefined;
  providers: ReadonlyMap<string, ProviderConfig>;
  managedAccess: ManagedAccessStatus;
  cacheTtlMs: number;
}): {
  /** The account's credentials, read once per request: the failover loop then looks each candidate's provider up synchronously. */
  credentialsOf(accountId: string): Promise<CredentialLookup>;
  /** The account's requests will use operator keys: it brought none of its own and its plan is resellable. */
  usesManagedAccess(accountId: string): Promise<boolean>;
} {
  const cache = createBoundedCache<string, AccountCredentials>({ entries: 50_000, ttlMs: options.cacheTtlMs, now: () => options.clock.now() });

  /** Managed access is on and the plan is resellable: read at each use, as the operator may turn it off while an entry is cached. */
  const managedPlan = (plan: string): boolean => options.managedAccess.active && options.managedAccess.plans.includes(plan);
  const managedFor = (credentials: AccountCredentials): boolean => !credentials.bringsOwnKeys && managedPlan(credentials.plan);

  /** BYOK first and exclusively; operator keys only for a managed plan, the key read at each look-up as the config holds it now. */
  const lookupOf = (plan: string, bringsOwnKeys: boolean, byok: ReadonlyMap<string, string>): CredentialLookup => {
    if (bringsOwnKeys) {
      const own = new Map<string, ResolvedCredential>([...byok].map(([providerId, value]) => [providerId, { value, source: 'byok' }]));
      return (providerId) => own.get(providerId);
    }
    return (providerId) => {
      if (!managedPlan(plan)) return undefined;
      const managed = options.providers.get(providerId)?.managedKey?.reveal();
      return managed === undefined ? undefined : { value: managed, source: 'managed' };
    };
  };

  const load = async (accountId: string): Promise<AccountCredentials> => {
    const cached = cache.get(accountId);
    if (cached) return cached;
    const [account, records] = await Promise.all([options.store.getAccount(accountId), options.store.listProviderKeys(accountId)]);
    const byok = new Map<string, string>();
    if (options.secretKey) {
      for (const record of records) byok.set(record.providerId, openSecret(record.sealed, options.secretKey));
    }
    const plan = account?.plan ?? '';
    const bringsOwnKeys = records.length > 0;
    const loaded = { plan, bringsOwnKeys, lookup: lookupOf(plan, bringsOwnKeys, byok) };
    cache.set(accountId, loaded);
    return loaded;
  };

  return {
    async usesManagedAccess(accountId) {
      return managedFor(await load(accountId));
    },
    async credentialsOf(accountId) {
      return (await load(accountId)).lookup;
    },
  };
}
