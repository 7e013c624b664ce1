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
import type { ResolvedCredential } from '../routing/failover.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { Store } from '../stores/store.js';

interface AccountCredentials {
  plan: string;
  /** The account brought keys of its own (even ones this instance cannot open): no operator fallback. */
  bringsOwnKeys: boolean;
  byok: ReadonlyMap<string, string>;
}

export function createCredentialResolver(options: {
  store: Store;
  clock: Clock;
  secretKey: string | undefined;
  providers: ReadonlyMap<string, ProviderConfig>;
  managedAccess: ManagedAccessStatus;
  cacheTtlMs: number;
}): {
  credentialFor(accountId: string, providerId: string): Promise<ResolvedCredential | undefined>;
  /** The account's requests will use operator keys: it brought none of its own and its plan is resellable. */
  usesManagedAccess(accountId: string): Promise<boolean>;
} {
  const cache = createBoundedCache<string, AccountCredentials>({ entries: 50_000, ttlMs: options.cacheTtlMs, now: () => options.clock.now() });

  const load = async (accountId: string): Promise<AccountCredentials> => {
    const cached = cache.get(accountId);
    if (cached) return cached;
    const [account, records] = await Promise.all([options.store.getAccount(accountId), options.store.listProviderKeys(accountId)]);
    const byok = new Map<string, string>();
    if (options.secretKey) {
      for (const record of records) byok.set(record.providerId, openSecret(record.sealed, options.secretKey));
    }
    const loaded = { plan: account?.plan ?? '', bringsOwnKeys: records.length > 0, byok };
    cache.set(accountId, loaded);
    return loaded;
  };

  const managedFor = (credentials: AccountCredentials): boolean =>
    !credentials.bringsOwnKeys && options.managedAccess.active && options.managedAccess.plans.includes(credentials.plan);

  return {
    async usesManagedAccess(accountId) {
      return managedFor(await load(accountId));
    },
    async credentialFor(accountId, providerId) {
      const credentials = await load(accountId);
      if (credentials.bringsOwnKeys) {
        const own = credentials.byok.get(providerId);
        return own === undefined ? undefined : { value: own, source: 'byok' };
      }
      if (!managedFor(credentials)) return undefined;
      const managed = options.providers.get(providerId)?.managedKey?.reveal();
      return managed === undefined ? undefined : { value: managed, source: 'managed' };
    },
  };
}
