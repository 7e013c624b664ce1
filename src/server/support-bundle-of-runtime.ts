/**
 * A support bundle as a running router sees itself: the account app's support page calls this for
 * the signed-in account and a request id it names (docs/usage.md#read-api).
 */
import { buildSupportBundle, type SupportBundle } from '../usage/support-bundle.js';
import type { RouterDeps } from './router-deps.js';

export async function supportBundleOfRuntime(deps: RouterDeps, scope: { accountId?: string; requestId?: string }): Promise<SupportBundle> {
  const store = await deps.store.ping().then(
    () => ({ kind: deps.store.kind, ok: true, detail: 'answers' }),
    () => ({ kind: deps.store.kind, ok: false, detail: 'does not answer' }),
  );
  const ledger = await deps.usage.store.ping().then(
    () => ({ live: true, detail: 'answers' }),
    () => ({ live: false, detail: 'does not answer' }),
  );
  const { requested, active, checks } = deps.managedAccess;
  return buildSupportBundle({
    config: deps.config,
    store: deps.store,
    ledger: deps.usage.store,
    nowMs: deps.clock.now(),
    readiness: {
      store,
      ledger: { ...ledger, writer: deps.usage.ledger?.status() ?? null },
      managedAccess: { requested, active, checks },
      limits: { quota: deps.quota.status(), rateLimiter: deps.rateLimiter.status() },
    },
    ...scope,
  });
}
