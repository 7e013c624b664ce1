/**
 * Guardrails per workspace, member and key: which models (config globs, config/model-globs.ts) and
 * providers requests may use, and whether only zero-data-retention providers may serve them. A key's
 * effective guardrail is the intersection of its workspace's, its member's and its own (guardrail-rules.ts
 * in routing/).
 */
import type { BudgetScope } from './budget-store.js';

export type GuardrailScope = BudgetScope;

export interface GuardrailRules {
  /** Null: every model; otherwise only models matching one of these globs. */
  allowedModels: readonly string[] | null;
  deniedModels: readonly string[];
  /** Null: every provider; otherwise only these provider ids. */
  allowedProviders: readonly string[] | null;
  deniedProviders: readonly string[];
  /** Only providers whose declared policy keeps no prompts (providers.yaml `policy.retentionDays: 0`). */
  requireZdr: boolean;
}

export interface GuardrailRecord extends GuardrailRules {
  accountId: string;
  scope: GuardrailScope;
  scopeId: string;
  createdAt: string;
  updatedAt: string;
}

export interface GuardrailStore {
  /** Upsert per (account, scope, scopeId); audited as `guardrail.set`. */
  setGuardrail(input: Omit<GuardrailRecord, 'createdAt' | 'updatedAt'>, actor: string): Promise<GuardrailRecord>;
  removeGuardrail(accountId: string, scope: GuardrailScope, scopeId: string, actor: string): Promise<boolean>;
  listGuardrails(accountId: string): Promise<GuardrailRecord[]>;
}

/** Bounds on what one guardrail may list (inputs are bounded everywhere). */
export const GUARDRAIL_LIST_MAX = 64;
export const GUARDRAIL_ENTRY_MAX = 128;
