/** What `router support-bundle` runs (defined in support-bundle.ts), loaded only when it runs. */
import { writeFileSync } from 'node:fs';
import { systemClock } from '../../core/clock.js';
import { describeError } from '../../core/describe-error.js';
import { checkLedgerLive, managedAccessFor } from '../../usage/open-usage.js';
import { buildSupportBundle } from '../../usage/support-bundle.js';
import { withCliContext, withLedgerStore } from '../cli-context.js';
import { CliFailure, emit, log } from '../cli-io.js';
import type { StoreCommandOptions } from '../store-options.js';

export async function writeSupportBundle(options: StoreCommandOptions & { out: string; account?: string; requestId?: string }): Promise<void> {
  await withCliContext(options.config, async ({ config, store }) => {
    const bundle = await withLedgerStore(config, async (ledger) => {
      const storeState = await store.ping().then(
        () => ({ kind: store.kind, ok: true, detail: 'answers' }),
        (error: unknown) => ({ kind: store.kind, ok: false, detail: describeError(error) }),
      );
      const live = await checkLedgerLive(ledger, systemClock);
      const { requested, active, checks } = managedAccessFor(config, config.server.ledger.enabled ? live : { live: false, detail: 'the usage ledger is off (ledger.enabled: false)' });
      return buildSupportBundle({
        config,
        store,
        ledger,
        nowMs: systemClock.now(),
        readiness: { store: storeState, ledger: { ...live, writer: null }, managedAccess: { requested, active, checks } },
        ...(options.account ? { accountId: options.account } : {}),
        ...(options.requestId ? { requestId: options.requestId } : {}),
      });
    });
    // A bundle asked for one request but holding none would reach support looking complete.
    if (bundle.request?.records.length === 0) {
      const scope = options.account ? ` for account ${options.account}` : '';
      const why = config.server.ledger.enabled
        ? `check the id (the X-Request-Id of the response); records are kept ${config.server.ledger.retentionDays} days, and a request refused before admission has none`
        : 'the usage ledger is off (ledger.enabled: false), so no request has one; leave out --request-id';
      throw new CliFailure(`no ledger record of request ${options.requestId}${scope}: ${why}. No bundle written`);
    }
    writeFileSync(options.out, `${JSON.stringify(bundle, null, 2)}\n`, { mode: 0o600 });
    const records = bundle.request?.records.length;
    emit(options, { written: options.out, requestRecords: records ?? null }, () => log.success(`support bundle written to ${options.out}`));
  });
}
