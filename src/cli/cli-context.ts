/** Config and store for operator commands, opened per invocation and always closed. */
import type { KeyService } from '../accounts/key-service.js';
import type { RouterConfig } from '../config/types.js';
import type { LedgerStore } from '../stores/ledger-store.js';
import { NotFoundInStoreError, type Store } from '../stores/store.js';
import { log } from './cli-io.js';

export interface CliContext {
  config: RouterConfig;
  store: Store;
  keys: KeyService;
}

export async function withCliContext<T>(configFlag: string | undefined, run: (ctx: CliContext) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: `router --help` and commands that open no store start without them.
  const [{ KeyService }, { loadConfig }, { resolveConfigDir }, { systemClock }, { openQuotaLedger }, { openStore }] = await Promise.all([
    import('../accounts/key-service.js'),
    import('../config/load-config.js'),
    import('../config/resolve-config-dir.js'),
    import('../core/clock.js'),
    import('../stores/open-quota-ledger.js'),
    import('../stores/open-store.js'),
  ]);
  const config = loadConfig(resolveConfigDir(configFlag, process.env), process.env);
  const rawStore = await openStore(config.server.storage, systemClock);
  // Plan changes and deactivations made here must reach the quota gate the running instances share.
  const { quota, store } = await openQuotaLedger(config.server.rateLimit, rawStore, {
    onForgetFailed: (accountId) =>
      log.warn(`account ${accountId} changed, but Redis could not be told: running instances apply it within a minute (the quota gate's card TTL)`),
  });
  try {
    await store.migrate();
    const keys = new KeyService({ store, clock: systemClock, secret: config.server.secretKey?.reveal(), cacheTtlMs: 1 });
    return await run({ config, store, keys });
  } finally {
    await quota.close();
    await store.close();
  }
}

/** The usage ledger's store on the configured database, for commands that read usage; always closed. */
export async function withLedgerStore<T>(config: RouterConfig, run: (ledger: LedgerStore) => Promise<T>): Promise<T> {
  const [{ openLedgerStore }, { systemClock }] = await Promise.all([import('../stores/open-ledger-store.js'), import('../core/clock.js')]);
  const ledger = await openLedgerStore(config.server.storage, systemClock);
  try {
    await ledger.migrate();
    return await run(ledger);
  } finally {
    await ledger.close();
  }
}

/** Listing or changing what belongs to an account that does not exist is a failure, not an empty answer. */
export async function requireAccount(store: Store, accountId: string): Promise<void> {
  if (!(await store.getAccount(accountId))) throw new NotFoundInStoreError('account', accountId);
}
