/**
 * The account app's view of the usage ledger (app/ledger-seams.ts), built by the composition root from
 * the runtime: reports through the read service `router usage` uses, and the customer's support bundle
 * (the router's version and the account's own records; the operator's bundle is the CLI's). Each call is
 * scoped to the account it names.
 */
import type { LedgerViews } from '../app/ledger-seams.js';
import { buildCustomerSupportBundle } from '../usage/support-bundle.js';
import type { LedgerRecord } from '../stores/ledger-store.js';
import { recordInScope, recordedScopeOf } from '../usage/usage-attribution.js';
import { dailyUsage, lastUsedByKey, listRequests, peopleWithUsage, usageReport } from '../usage/usage-report.js';
import type { RouterDeps } from '../http/router-deps.js';

export function createLedgerViews(deps: Pick<RouterDeps, 'usage' | 'clock'>): LedgerViews {
  const ledger = deps.usage.store;
  const recording = deps.usage.ledger !== null;
  return {
    recording,
    async lastUsed(accountId) {
      if (!recording) return null;
      return new Map((await lastUsedByKey(ledger, accountId)).map((entry) => [entry.keyId, entry.lastAt]));
    },
    daily: (query) => dailyUsage(ledger, query),
    report: (query) => usageReport(ledger, query),
    peopleWithUsage: (query) => peopleWithUsage(ledger, query),
    recentRequests: (accountId, limit, view) => listRequests(ledger, { accountId, limit, ...view }),
    async supportBundle(accountId, requestId, view) {
      // Scoped by whom each record was made for, not by who holds its key now (a key handed over keeps its past with its maker).
      const directory = view?.directory;
      const mine = directory && recordedScopeOf(directory, view.scope) ? (record: LedgerRecord) => recordInScope(record, directory, view.scope) : undefined;
      const bundle = await buildCustomerSupportBundle({ ledger, accountId, requestId, nowMs: deps.clock.now(), ...(mine ? { mine } : {}) });
      // No records of this id in this account (another account's id, or a made-up one): nothing to bundle.
      return bundle.request.records.length > 0 ? bundle : null;
    },
  };
}
