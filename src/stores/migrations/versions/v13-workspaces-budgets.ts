/**
 * Version 13: workspaces inside an organization (an `accounts` row), budgets and guardrails per
 * workspace, member and key, and the meters that make budgets hard. Additive only: a key or usage record
 * without a workspace belongs to its organization's default workspace, which this migration gives every
 * existing organization, and a trigger every new one, in the transaction that inserts it: whichever code
 * path creates an organization (sign-up, the CLI, a person's new organization, a release before this
 * one during a rolling upgrade), it never lacks its default workspace.
 *
 * budget_meter holds what each scope spent per period (`d:YYYY-MM-DD`, `w:YYYY-MM-DD` (its Monday),
 * `m:YYYY-MM`, `t` for all time), written by the ledger in the transaction that writes the records;
 * budget_reservations holds the estimates of requests in flight, released by the same transaction, as
 * spend_meter and spend_reservations do for the managed-access cap.
 */
import type { VersionedMigration } from './versioned-migration.js';

export const v13WorkspacesBudgets: VersionedMigration = {
  version: 13,
  name: 'workspaces, budgets and guardrails',
  sqlite: `
    CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      name TEXT NOT NULL,
      slug TEXT NOT NULL,
      is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
      created_at TEXT NOT NULL,
      UNIQUE (account_id, slug)
    );
    CREATE UNIQUE INDEX workspaces_one_default ON workspaces (account_id) WHERE is_default = 1;
    INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at)
      SELECT 'ws_' || lower(hex(randomblob(12))), id, 'Default', 'default', 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM accounts;
    CREATE TRIGGER accounts_default_workspace AFTER INSERT ON accounts BEGIN
      INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at)
      VALUES ('ws_' || lower(hex(randomblob(12))), NEW.id, 'Default', 'default', 1, NEW.created_at);
    END;

    ALTER TABLE api_keys ADD COLUMN workspace_id TEXT;
    ALTER TABLE usage_records ADD COLUMN workspace_id TEXT;

    CREATE TABLE budgets (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('workspace', 'member', 'key')),
      scope_id TEXT NOT NULL,
      limit_nano_usd INTEGER NOT NULL CHECK (limit_nano_usd >= 0),
      period TEXT NOT NULL CHECK (period IN ('day', 'week', 'month', 'total')),
      include_byok INTEGER NOT NULL DEFAULT 1 CHECK (include_byok IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (account_id, scope, scope_id)
    );

    CREATE TABLE budget_meter (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      scope_id TEXT NOT NULL,
      period_key TEXT NOT NULL,
      spent_nano_usd INTEGER NOT NULL DEFAULT 0 CHECK (spent_nano_usd >= 0),
      managed_nano_usd INTEGER NOT NULL DEFAULT 0 CHECK (managed_nano_usd >= 0),
      PRIMARY KEY (account_id, scope, scope_id, period_key)
    );

    CREATE TABLE budget_reservations (
      id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      scope_id TEXT NOT NULL,
      period_key TEXT NOT NULL,
      nano_usd INTEGER NOT NULL CHECK (nano_usd >= 0),
      expires_at TEXT NOT NULL,
      PRIMARY KEY (id, scope)
    );
    CREATE INDEX budget_reservations_meter ON budget_reservations (account_id, scope, scope_id, period_key);
    CREATE INDEX budget_reservations_expiry ON budget_reservations (expires_at);

    CREATE TABLE guardrails (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('workspace', 'member', 'key')),
      scope_id TEXT NOT NULL,
      allowed_models TEXT,
      denied_models TEXT NOT NULL DEFAULT '[]',
      allowed_providers TEXT,
      denied_providers TEXT NOT NULL DEFAULT '[]',
      require_zdr INTEGER NOT NULL DEFAULT 0 CHECK (require_zdr IN (0, 1)),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (account_id, scope, scope_id)
    );
  `,
  postgres: `
    CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      name TEXT NOT NULL,
      slug TEXT NOT NULL,
      is_default BOOLEAN NOT NULL DEFAULT FALSE,
      created_at TIMESTAMPTZ NOT NULL,
      UNIQUE (account_id, slug)
    );
    CREATE UNIQUE INDEX workspaces_one_default ON workspaces (account_id) WHERE is_default;
    INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at)
      SELECT 'ws_' || substr(md5(random()::text || id || clock_timestamp()::text), 1, 24), id, 'Default', 'default', TRUE, now() FROM accounts;
    CREATE FUNCTION accounts_default_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO workspaces (id, account_id, name, slug, is_default, created_at)
      VALUES ('ws_' || substr(md5(random()::text || NEW.id || clock_timestamp()::text), 1, 24), NEW.id, 'Default', 'default', TRUE, NEW.created_at);
      RETURN NEW;
    END $$;
    CREATE TRIGGER accounts_default_workspace AFTER INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION accounts_default_workspace();

    ALTER TABLE api_keys ADD COLUMN workspace_id TEXT;
    ALTER TABLE usage_records ADD COLUMN workspace_id TEXT;

    CREATE TABLE budgets (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('workspace', 'member', 'key')),
      scope_id TEXT NOT NULL,
      limit_nano_usd BIGINT NOT NULL CHECK (limit_nano_usd >= 0),
      period TEXT NOT NULL CHECK (period IN ('day', 'week', 'month', 'total')),
      include_byok BOOLEAN NOT NULL DEFAULT TRUE,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (account_id, scope, scope_id)
    );

    CREATE TABLE budget_meter (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      scope_id TEXT NOT NULL,
      period_key TEXT NOT NULL,
      spent_nano_usd BIGINT NOT NULL DEFAULT 0 CHECK (spent_nano_usd >= 0),
      managed_nano_usd BIGINT NOT NULL DEFAULT 0 CHECK (managed_nano_usd >= 0),
      PRIMARY KEY (account_id, scope, scope_id, period_key)
    );

    CREATE TABLE budget_reservations (
      id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      scope_id TEXT NOT NULL,
      period_key TEXT NOT NULL,
      nano_usd BIGINT NOT NULL CHECK (nano_usd >= 0),
      expires_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (id, scope)
    );
    CREATE INDEX budget_reservations_meter ON budget_reservations (account_id, scope, scope_id, period_key);
    CREATE INDEX budget_reservations_expiry ON budget_reservations (expires_at);

    CREATE TABLE guardrails (
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('workspace', 'member', 'key')),
      scope_id TEXT NOT NULL,
      allowed_models JSONB,
      denied_models JSONB NOT NULL DEFAULT '[]',
      allowed_providers JSONB,
      denied_providers JSONB NOT NULL DEFAULT '[]',
      require_zdr BOOLEAN NOT NULL DEFAULT FALSE,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (account_id, scope, scope_id)
    );
  `,
};
