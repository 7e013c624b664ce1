/** Guardrail and budget rows as both dialects keep them (lists as JSON) and their mapping to records. */
import type { BudgetPeriod, BudgetRecord, BudgetScope } from './budget-store.js';
import type { GuardrailRecord, GuardrailScope } from './guardrail-store.js';
import type { WorkspaceRecord } from './workspace-store.js';

type Instant = string | Date;
type Json<T> = string | T;
const iso = (value: Instant): string => (value instanceof Date ? value.toISOString() : value);
const list = (value: Json<string[]> | null): string[] | null => (value === null ? null : typeof value === 'string' ? (JSON.parse(value) as string[]) : value);

export interface WorkspaceRow { id: string; account_id: string; name: string; slug: string; is_default: number | boolean; created_at: Instant }

export function toWorkspace(row: WorkspaceRow): WorkspaceRecord {
  return { id: row.id, accountId: row.account_id, name: row.name, slug: row.slug, isDefault: row.is_default === true || row.is_default === 1, createdAt: iso(row.created_at) };
}

export interface BudgetRow {
  account_id: string;
  scope: BudgetScope;
  scope_id: string;
  limit_nano_usd: number | string;
  period: BudgetPeriod;
  include_byok: number | boolean;
  created_at: Instant;
  updated_at: Instant;
}

export function toBudget(row: BudgetRow): BudgetRecord {
  return {
    accountId: row.account_id,
    scope: row.scope,
    scopeId: row.scope_id,
    limitNanoUsd: Number(row.limit_nano_usd),
    period: row.period,
    includeByok: row.include_byok === true || row.include_byok === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export interface GuardrailRow {
  account_id: string;
  scope: GuardrailScope;
  scope_id: string;
  allowed_models: Json<string[]> | null;
  denied_models: Json<string[]>;
  allowed_providers: Json<string[]> | null;
  denied_providers: Json<string[]>;
  require_zdr: number | boolean;
  created_at: Instant;
  updated_at: Instant;
}

export function toGuardrail(row: GuardrailRow): GuardrailRecord {
  return {
    accountId: row.account_id,
    scope: row.scope,
    scopeId: row.scope_id,
    allowedModels: list(row.allowed_models),
    deniedModels: list(row.denied_models) ?? [],
    allowedProviders: list(row.allowed_providers),
    deniedProviders: list(row.denied_providers) ?? [],
    requireZdr: row.require_zdr === true || row.require_zdr === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A guardrail's lists as the JSON both dialects store (null stays null: "no allow list"). */
export function guardrailValues(input: Pick<GuardrailRecord, 'allowedModels' | 'deniedModels' | 'allowedProviders' | 'deniedProviders'>) {
  return {
    allowed_models: input.allowedModels === null ? null : JSON.stringify(input.allowedModels),
    denied_models: JSON.stringify(input.deniedModels),
    allowed_providers: input.allowedProviders === null ? null : JSON.stringify(input.allowedProviders),
    denied_providers: JSON.stringify(input.deniedProviders),
  };
}

/** The non-secret details an audit event keeps of a guardrail. */
export function guardrailAuditDetails(input: Omit<GuardrailRecord, 'createdAt' | 'updatedAt' | 'accountId'>): Record<string, unknown> {
  return {
    scope: input.scope,
    scopeId: input.scopeId,
    allowedModels: input.allowedModels,
    deniedModels: input.deniedModels,
    allowedProviders: input.allowedProviders,
    deniedProviders: input.deniedProviders,
    requireZdr: input.requireZdr,
  };
}
