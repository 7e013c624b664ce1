/** PostgreSQL schema, version by version. Parallel to sqlite-migrations.ts: change both together. */
import type { Migration } from './migration.js';

export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, provider keys, quota usage, audit events',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        plan TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
        created_at TIMESTAMPTZ NOT NULL
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT,
        prefix TEXT NOT NULL,
        last4 TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ,
        expires_at TIMESTAMPTZ
      );
      CREATE INDEX api_keys_account_id ON api_keys (account_id);

      CREATE TABLE provider_keys (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        provider_id TEXT NOT NULL,
        sealed TEXT NOT NULL,
        last4 TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (account_id, provider_id)
      );

      CREATE TABLE quota_usage (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        period TEXT NOT NULL,
        used INTEGER NOT NULL CHECK (used >= 0),
        PRIMARY KEY (account_id, period)
      );

      -- seq orders events that share a millisecond; id is the stable public identifier.
      CREATE TABLE audit_events (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        at TIMESTAMPTZ NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        account_id TEXT,
        key_id TEXT,
        details JSONB NOT NULL
      );
      CREATE INDEX audit_events_account_id ON audit_events (account_id, seq);
    `,
  },
  {
    version: 2,
    name: 'quota units held by a Redis quota gate',
    // held: units reserved for the gate and not yet settled as used. Admission checks used + held.
    sql: `ALTER TABLE quota_usage ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0);`,
  },
  {
    version: 4,
    name: 'account app: logins, sessions, single-use links, per-key limits',
    // Version 3 belongs to the usage ledger. Tokens and passwords are stored only as hashes.
    sql: `
      CREATE TABLE account_logins (
        account_id TEXT PRIMARY KEY REFERENCES accounts (id),
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
      );

      CREATE TABLE account_sessions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        token_hash TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL,
        last_seen_at TIMESTAMPTZ NOT NULL,
        user_agent TEXT,
        ip TEXT
      );
      CREATE INDEX account_sessions_account_id ON account_sessions (account_id);

      CREATE TABLE link_tokens (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('invite', 'reset')),
        email TEXT NOT NULL,
        account_id TEXT REFERENCES accounts (id),
        token_hash TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        used_at TIMESTAMPTZ
      );

      CREATE TABLE api_key_limits (
        key_id TEXT PRIMARY KEY REFERENCES api_keys (id),
        monthly_requests INTEGER CHECK (monthly_requests > 0),
        requests_per_minute INTEGER CHECK (requests_per_minute > 0)
      );

      CREATE TABLE key_quota_usage (
        key_id TEXT NOT NULL REFERENCES api_keys (id),
        period TEXT NOT NULL,
        used INTEGER NOT NULL CHECK (used >= 0),
        PRIMARY KEY (key_id, period)
      );
    `,
  },
];
