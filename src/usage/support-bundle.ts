/**
 * A support bundle: what a support request may carry about a router and, when named, one account and
 * one request. Two audiences: the operator's bundle (`router support-bundle`) describes the router
 * (masked configuration, readiness); the customer's bundle (the account app) holds only the router's
 * version and the customer's own records of one request, since the operator's setup (directories,
 * storage, upstream hosts, listen address, managed access) is none of a customer's business. Never in it (the specification's list): prompts, provider credentials, OAuth tokens,
 * generated keys, private keys, session cookies, raw provider responses, customer data. The ledger
 * holds none of those (ids, codes, counts and timings only), the configuration is masked, accounts are
 * reduced to id, plan and status (no email), and a last pass scrubs anything shaped like a secret.
 */
import { createRequire } from 'node:module';
import type { RouterConfig } from '../config/types.js';
import type { ManagedAccessStatus } from '../routing/managed-access.js';
import type { LedgerRecord, LedgerStore } from '../stores/ledger-store.js';
import { sqliteMigrations } from '../stores/migrations/sqlite-migrations.js';
import type { Store } from '../stores/store.js';
import { maskConfig, scrubDeep } from './redact-secrets.js';
import type { UsageLedgerStatus } from './usage-ledger.js';

const ERROR_WINDOW_MS = 24 * 3_600_000;

export interface SupportReadiness {
  store: { kind: string; ok: boolean; detail: string };
  ledger: { live: boolean; detail: string; writer: UsageLedgerStatus | null };
  managedAccess: Pick<ManagedAccessStatus, 'requested' | 'active' | 'checks'>;
  /** Quota and rate-limit backends in force (a running instance knows them; the CLI does not). */
  limits?: { quota: unknown; rateLimiter: unknown };
}

export interface SupportBundleInput {
  config: RouterConfig;
  store: Store;
  ledger: LedgerStore;
  readiness: SupportReadiness;
  nowMs: number;
  /** Scope to one account: its standing, its error counts, and only its records of `requestId`. */
  accountId?: string;
  requestId?: string;
}

export interface SupportBundle {
  object: 'support_bundle';
  createdAt: string;
  versions: { router: string; node: string; platform: string; schemaVersion: number; store: string };
  configuration: unknown;
  readiness: SupportReadiness;
  recentErrors: { since: string; accountId: string | null; byCode: { code: string; count: number }[] };
  account?: { id: string; plan: string; status: string; createdAt: string } | null;
  request?: BundledRequest;
}

/** A request's records, and its trace id when it was traced (the way to its trace in the tracing backend). */
export interface BundledRequest {
  requestId: string;
  traceId?: string;
  records: LedgerRecord[];
}

function bundledRequest(requestId: string, records: LedgerRecord[]): BundledRequest {
  const traceId = records.find((record) => record.traceId)?.traceId;
  return { requestId, ...(traceId ? { traceId } : {}), records };
}

export const routerVersion = (): string => (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** What the account app hands a customer about one of its requests. */
export interface CustomerSupportBundle {
  object: 'support_bundle';
  createdAt: string;
  versions: { router: string };
  request: BundledRequest;
}

/** With `mine`, only the records it accepts (a member's bundle holds only the requests they made). */
export async function buildCustomerSupportBundle(input: { ledger: LedgerStore; accountId: string; requestId: string; nowMs: number; mine?: (record: LedgerRecord) => boolean }): Promise<CustomerSupportBundle> {
  const found = await input.ledger.findRecords({ requestId: input.requestId, accountId: input.accountId });
  const records = input.mine ? found.filter(input.mine) : found;
  return scrubDeep({
    object: 'support_bundle',
    createdAt: new Date(input.nowMs).toISOString(),
    versions: { router: routerVersion() },
    request: bundledRequest(input.requestId, records),
  });
}

export async function buildSupportBundle(input: SupportBundleInput): Promise<SupportBundle> {
  const since = new Date(input.nowMs - ERROR_WINDOW_MS).toISOString();
  const scope = input.accountId === undefined ? {} : { accountId: input.accountId };
  const [errors, account, records] = await Promise.all([
    input.ledger.countErrors({ since, ...scope }),
    input.accountId === undefined ? undefined : input.store.getAccount(input.accountId),
    input.requestId === undefined ? undefined : input.ledger.findRecords({ requestId: input.requestId, ...scope }),
  ]);
  const bundle: SupportBundle = {
    object: 'support_bundle',
    createdAt: new Date(input.nowMs).toISOString(),
    versions: {
      router: routerVersion(),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      schemaVersion: Math.max(...sqliteMigrations.map((migration) => migration.version)),
      store: input.store.kind,
    },
    configuration: maskConfig(input.config),
    readiness: input.readiness,
    recentErrors: { since, accountId: input.accountId ?? null, byCode: errors },
  };
  if (account !== undefined) bundle.account = account && { id: account.id, plan: account.plan, status: account.status, createdAt: account.createdAt };
  if (records !== undefined && input.requestId !== undefined) bundle.request = bundledRequest(input.requestId, records);
  return scrubDeep(bundle);
}
