/** Row shapes as node-postgres returns them (TIMESTAMPTZ as Date, JSONB parsed) and their mapping to records. */
import type { Account, AccountStatus, ApiKeyKind, ApiKeyRecord, AuditEvent, ProviderKeyRecord } from '../store.js';

export interface AccountRow {
  id: string;
  email: string;
  name?: string | null;
  plan: string;
  status: AccountStatus;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  last4: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  kind: ApiKeyKind;
  disabled_at: Date | null;
  updated_at: Date | null;
  /** Version 13. */
  workspace_id: string | null;
  person_id?: string | null;
}

export interface ProviderKeyRow {
  account_id: string;
  provider_id: string;
  sealed: string;
  last4: string;
  created_at: Date;
  updated_at: Date;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  actor: string;
  action: string;
  account_id: string | null;
  key_id: string | null;
  details: Record<string, unknown>;
}

const isoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());

export function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, name: row.name ?? null, plan: row.plan, status: row.status, createdAt: row.created_at.toISOString() };
}

export function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    hash: row.hash,
    createdAt: row.created_at.toISOString(),
    revokedAt: isoOrNull(row.revoked_at),
    expiresAt: isoOrNull(row.expires_at),
    kind: row.kind,
    disabledAt: isoOrNull(row.disabled_at),
    updatedAt: isoOrNull(row.updated_at),
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
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    accountId: row.account_id,
    keyId: row.key_id,
    details: row.details,
  };
}
