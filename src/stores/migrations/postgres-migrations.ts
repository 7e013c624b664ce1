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
];
