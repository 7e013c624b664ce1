/**
 * The one storage interface. The pipeline, CLI and routing code depend on this file only; the
 * composition root (server/create-router.ts, cli/open-store.ts) picks SQLite or PostgreSQL.
 * Every mutation of accounts, keys and provider keys writes its audit event in the same transaction.
 */
import type { AccountAuthStore } from './account-auth-store.js';
import type { BillingStore } from './billing-store.js';
import type { KeyLimitStore } from './key-limit-store.js';
import type { AlertStore } from './alert-store.js';
import type { ToolCallSignatureStore } from './tool-call-signature-store.js';
import type { PeopleStore } from './people-store.js';
import type { Account, AccountStatus } from './account.js';
import type { AccountCachePolicy } from './response-cache-store.js';
import type { BudgetStore } from './budget-store.js';
import type { GuardrailStore } from './guardrail-store.js';
import type { WorkspaceStore } from './workspace-store.js';
import type { PresetStore } from './preset-store.js';

/** Account's own file breaks the type cycle with the sub-interfaces; importers keep naming it from here. */
export type { Account, AccountStatus };

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string | null;
  /** Always `sk_router_`; with last4 this is all a listing ever shows. */
  prefix: string;
  last4: string;
  /** Hex SHA-256 (or HMAC-SHA-256) of the full key. The key itself is never stored. */
  hash: string;
  createdAt: string;
  revokedAt: string | null;
  /** Set by rotation with a grace period: the old key stops working at this instant. */
  expiresAt: string | null;
  /** The key's workspace (version 13); null: the organization's default workspace. */
  workspaceId: string | null;
  /** The person who created it (teams); null when the operator, the CLI or a release before teams did. */
  personId: string | null;
  /** `inference` calls models; `management` manages the account's keys (/v1/keys) and never calls a model. */
  kind: ApiKeyKind;
  /** Disabled through /v1/keys: refused until enabled again (unlike revocation, reversible). */
  disabledAt: string | null;
  /** Last change of its name or disabled state; null when never changed since creation. */
  updatedAt: string | null;
}

export type ApiKeyKind = 'inference' | 'management';

/** What /v1/keys may change on a key; absent fields stay as they are. */
export interface ApiKeyPatch {
  name?: string | null;
  disabled?: boolean;
}

export interface ProviderKeyRecord {
  accountId: string;
  providerId: string;
  /** AES-256-GCM sealed credential (core/secret-box.ts); never returned by listings to clients. */
  sealed: string;
  last4: string;
  createdAt: string;
  updatedAt: string;
}

export interface AuditEvent {
  id: string;
  at: string;
  /** Who acted: `cli`, `api`, `system`, `person:<psn_id>` (a person in the app). */
  actor: string;
  /** e.g. `account.create`, `key.rotate`, `provider_key.set`. */
  action: string;
  accountId: string | null;
  keyId: string | null;
  /** Non-secret context (plan names, provider ids, grace seconds). */
  details: Record<string, unknown>;
}

export interface QuotaAdmission {
  /** The account's plan and status as stored now: plan changes take effect on the next request. */
  plan: string;
  status: AccountStatus;
  admitted: boolean;
  /**
   * Requests counted in the period after this decision (this one included when admitted), plus units a
   * quota gate holds: everything the limit is checked against.
   */
  used: number;
  limit: number;
}

export interface QuotaAdmitInput {
  accountId: string;
  /** Period key, e.g. `2026-11` (calendar month, UTC). */
  period: string;
  weight: number;
  /** Monthly limit per plan id; the store applies the one of the account's current plan. */
  limitsByPlan: Readonly<Record<string, number>>;
}

/** The account app's parts (sign-in, sessions, links, per-key limits), billing, alerts, tool-call signatures, people, workspaces, budgets, guardrails and presets live in their own interfaces. */
export interface Store extends AccountAuthStore, KeyLimitStore, BillingStore, AlertStore, ToolCallSignatureStore, PeopleStore, WorkspaceStore, BudgetStore, GuardrailStore, PresetStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Apply pending versioned migrations. Idempotent. */
  migrate(): Promise<void>;
  /** Throws when the store cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;

  createAccount(input: { email: string; plan: string }, actor: string): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  listAccounts(): Promise<Account[]>;
  setAccountPlan(id: string, plan: string, actor: string): Promise<Account>;
  deactivateAccount(id: string, actor: string): Promise<Account>;
  /** The account's rule for the response cache (docs/caching.md); `allow` for an account that set none. */
  getResponseCachePolicy(accountId: string): Promise<AccountCachePolicy>;
  setResponseCachePolicy(accountId: string, policy: AccountCachePolicy, actor: string): Promise<void>;

  /**
   * `expiresAt`: an expiry chosen at creation (null or absent: none). `personId`: who made it (absent: nobody, e.g. the CLI).
   * `workspaceId`: one of the account's workspaces (null or absent: the default).
   */
  createApiKey(
    input: { accountId: string; name: string | null; hash: string; last4: string; expiresAt?: string | null; personId?: string | null; kind?: ApiKeyKind; workspaceId?: string | null },
    actor: string,
  ): Promise<ApiKeyRecord>;
  /** Renames, disables or enables a key, audited as `key.update` with what changed. */
  updateApiKey(id: string, patch: ApiKeyPatch, actor: string): Promise<ApiKeyRecord>;
  findApiKeyByHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | null>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Creates the replacement and revokes (grace 0) or schedules expiry of the old key, in one transaction.
   * The replacement keeps the old key's expiry (as it was before the grace), its kind, its own limits and
   * its count against its own monthly cap.
   */
  rotateApiKey(
    oldKeyId: string,
    replacement: { hash: string; last4: string; name: string | null },
    graceSeconds: number,
    actor: string,
  ): Promise<{ revoked: ApiKeyRecord; created: ApiKeyRecord }>;
  revokeApiKey(id: string, actor: string): Promise<ApiKeyRecord>;

  setProviderKey(input: { accountId: string; providerId: string; sealed: string; last4: string }, actor: string): Promise<ProviderKeyRecord>;
  listProviderKeys(accountId: string): Promise<ProviderKeyRecord[]>;
  removeProviderKey(accountId: string, providerId: string, actor: string): Promise<boolean>;

  /**
   * Check and increment in one atomic step: concurrent callers can never overrun the limit. The check
   * is against used + held, so units reserved by a quota gate are never handed out twice.
   */
  admitQuota(input: QuotaAdmitInput): Promise<QuotaAdmission>;
  /** Give back a request no upstream served. Never drops below zero. */
  refundQuota(accountId: string, period: string, weight: number): Promise<void>;
  /** Requests counted as used in the period (a gate's admissions once settled). */
  readQuota(accountId: string, period: string): Promise<number>;

  /** The same atomic check as admitQuota, but the units are held for a quota gate rather than used. */
  holdQuota(input: QuotaAdmitInput): Promise<QuotaAdmission>;
  /**
   * Move `delta` units a gate admitted from held to used (a negative delta moves refunded ones back).
   * Neither column drops below zero.
   */
  settleQuota(accountId: string, period: string, delta: number): Promise<void>;
  /** used + held: everything counted against the limit in the period. */
  readQuotaCommitted(accountId: string, period: string): Promise<number>;

  listAuditEvents(filter?: { accountId?: string; limit?: number }): Promise<AuditEvent[]>;
}

/** Thrown by stores for a missing account or key (and by the CLI for a member it was named); the CLI turns it into exit 1 with a one-line reason. */
export class NotFoundInStoreError extends Error {
  constructor(readonly entity: 'account' | 'api_key' | 'provider_key' | 'workspace' | 'member', readonly id: string) {
    super(`${entity.replace('_', ' ')} ${id} not found`);
    this.name = 'NotFoundInStoreError';
  }
}

/** Thrown when the backing database cannot be reached; the pipeline fails closed with 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
