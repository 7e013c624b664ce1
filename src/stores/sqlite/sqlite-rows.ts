/** Row shapes as SQLite returns them (snake_case, TEXT timestamps, JSON text) and their mapping to records. */
import type { Account, AccountStatus, ApiKeyKind, ApiKeyRecord, AuditEvent, ProviderKeyRecord } from '../store.js';

export interface AccountRow {
  id: string;
  email: string;
  name?: string | null;
  plan: string;
  status: AccountStatus;
  created_at: string;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  last4: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  kind: ApiKeyKind;
  disabled_at: string | null;
  updated_at: string | null;
  /** Version 13. */
  workspace_id: string | null;
  person_id?: string | null;
}

export interface ProviderKeyRow {
  account_id: string;
  provider_id: string;
  sealed: string;
  last4: string;
  created_at: string;
  updated_at: string;
}

export interface AuditEventRow {
  id: string;
  at: string;
  actor: string;
  action: string;
  account_id: string | null;
  key_id: string | null;
  details: string;
}

export function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, name: row.name ?? null, plan: row.plan, status: row.status, createdAt: row.created_at };
}

export function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    hash: row.hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    kind: row.kind,
    disabledAt: row.disabled_at,
    updatedAt: row.updated_at,
    workspaceId: row.workspace_id ?? null,
    personId: row.person_id ?? null,
  };
}

export function toProviderKey(row: ProviderKeyRow): ProviderKeyRecord {
  return {
    accountId: row.account_id,
    providerId: row.provider_id,
    sealed: row.sealed,
    last4: row.last4,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    accountId: row.account_id,
    keyId: row.key_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}
