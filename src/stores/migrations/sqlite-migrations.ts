/** SQLite schema, version by version. Parallel to postgres-migrations.ts: change both together. */
import type { Migration } from './migration.js';
import { laterMigrations } from './versions/index.js';

export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, provider keys, quota usage, audit events',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        plan TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
        created_at TEXT NOT NULL
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT,
        prefix TEXT NOT NULL,
        last4 TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        expires_at TEXT
      );
      CREATE INDEX api_keys_account_id ON api_keys (account_id);

      CREATE TABLE provider_keys (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        provider_id TEXT NOT NULL,
        sealed TEXT NOT NULL,
        last4 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
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
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        account_id TEXT,
        key_id TEXT,
        details TEXT NOT NULL
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
    version: 3,
    name: 'usage ledger, rollups, managed-access spend meter',
    // usage_records: one row per upstream call of an admitted model request (call 'main' for the request
    // itself; fusion adds its panel and judge calls under other labels). id is the record's own key and
    // sorts by start time (stores/ledger-record-ids.ts), so time ranges and pruning use the primary key;
    // request ids can come from the client, so they are indexed, never unique. NULL tokens mean the upstream
    // reported none (unknown). usage_rollups: the same records summed per account per quarter hour (UTC)
    // and dimension, written in the same transaction; every usage report reads them. spend_meter and
    // spend_reservations: managed-access spend per account and month, and the estimates held for requests
    // in flight (docs/usage.md).
    sql: `
      CREATE TABLE usage_records (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL,
        call TEXT NOT NULL,
        started_at TEXT NOT NULL,
        account_id TEXT NOT NULL,
        key_id TEXT,
        route_id TEXT,
        endpoint TEXT NOT NULL,
        provider_id TEXT,
        upstream_model TEXT,
        credential_source TEXT CHECK (credential_source IN ('byok', 'managed')),
        status INTEGER NOT NULL,
        error_code TEXT,
        retry_count INTEGER NOT NULL,
        attempts TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        reasoning_tokens INTEGER,
        cached_tokens INTEGER,
        cost_nano_usd INTEGER,
        metered_nano_usd INTEGER NOT NULL,
        first_byte_ms INTEGER,
        total_ms INTEGER NOT NULL,
        client_closed INTEGER NOT NULL,
        reservation_id TEXT
      );
      CREATE INDEX usage_records_request ON usage_records (request_id);
      CREATE INDEX usage_records_account_started ON usage_records (account_id, started_at);

      CREATE TABLE usage_rollups (
        account_id TEXT NOT NULL,
        bucket_start TEXT NOT NULL,
        key_id TEXT NOT NULL,
        route_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        upstream_model TEXT NOT NULL,
        credential_source TEXT NOT NULL,
        requests INTEGER NOT NULL,
        failed_requests INTEGER NOT NULL,
        calls INTEGER NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        unknown_usage_calls INTEGER NOT NULL,
        unpriced_calls INTEGER NOT NULL,
        cost_nano_usd INTEGER NOT NULL,
        metered_nano_usd INTEGER NOT NULL,
        last_at TEXT NOT NULL,
        PRIMARY KEY (account_id, bucket_start, key_id, route_id, provider_id, upstream_model, credential_source)
      );

      CREATE TABLE spend_meter (
        account_id TEXT NOT NULL,
        period TEXT NOT NULL,
        spent_nano_usd INTEGER NOT NULL CHECK (spent_nano_usd >= 0),
        PRIMARY KEY (account_id, period)
      );

      CREATE TABLE spend_reservations (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        period TEXT NOT NULL,
        nano_usd INTEGER NOT NULL CHECK (nano_usd >= 0),
        expires_at TEXT NOT NULL
      );
      CREATE INDEX spend_reservations_account ON spend_reservations (account_id, period);
      CREATE INDEX spend_reservations_expiry ON spend_reservations (expires_at);
    `,
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
        updated_at TEXT NOT NULL
      );

      CREATE TABLE account_sessions (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
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
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
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
  {
    version: 5,
    name: 'billing: subscription state per account, Stripe events applied',
    // billing_accounts: what the account's Stripe subscription says (re-read from Stripe on every event),
    // the higher plan kept until the end of a paid period after a downgrade, and next_change_at, when the
    // plan changes next without an event (period end, end of the past-due grace), which the sweep reads.
    // version: optimistic concurrency, so an older read of Stripe never overwrites a newer one.
    // billing_events: every Stripe event applied, under its id, written in the same transaction as its
    // effect: a replayed event finds its id and changes nothing.
    sql: `
      CREATE TABLE billing_accounts (
        account_id TEXT PRIMARY KEY REFERENCES accounts (id),
        customer_id TEXT,
        subscription_id TEXT,
        status TEXT,
        paid_plan TEXT,
        current_period_end TEXT,
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
        past_due_since TEXT,
        kept_plan TEXT,
        kept_until TEXT,
        next_change_at TEXT,
        last_event_id TEXT,
        version INTEGER NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX billing_accounts_next_change ON billing_accounts (next_change_at);

      CREATE TABLE billing_events (
        event_id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        received_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'email verification, verify links, alerts once per period, alert email preferences',
    // Email and alerts (docs/app.md#email-and-alerts). account_logins.email_verified_at: when the login's
    // address was confirmed through a mailed link; logins that existed before count as confirmed.
    // link_tokens gains the kind 'verify'. account_alerts: every alert raised, unique per account, kind,
    // subject (a key, a provider, a device, or '' for the account), period and level, so an alert is
    // recorded and mailed once however many workers, instances or restarts see it. alert_preferences:
    // which kinds an account wants by email (no row: the defaults).
    sql: `
      ALTER TABLE account_logins ADD COLUMN email_verified_at TEXT;
      UPDATE account_logins SET email_verified_at = updated_at;

      CREATE TABLE link_tokens_v6 (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('invite', 'reset', 'verify')),
        email TEXT NOT NULL,
        account_id TEXT REFERENCES accounts (id),
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT
      );
      INSERT INTO link_tokens_v6 SELECT id, kind, email, account_id, token_hash, created_at, expires_at, used_at FROM link_tokens;
      DROP TABLE link_tokens;
      ALTER TABLE link_tokens_v6 RENAME TO link_tokens;

      CREATE TABLE account_alerts (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        period TEXT NOT NULL,
        level INTEGER NOT NULL,
        details TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (account_id, kind, subject, period, level)
      );
      CREATE INDEX account_alerts_recent ON account_alerts (account_id, created_at);

      CREATE TABLE alert_preferences (
        account_id TEXT PRIMARY KEY REFERENCES accounts (id),
        email_kinds TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'usage ledger: cache-write tokens and cost per token type',
    // Each token type and its cost (issue 23). usage_records: 5-minute and 1-hour cache-write tokens (NULL
    // with the other tokens when unknown; 0 in rows written before), and the record's cost split per token
    // type in nano-USD (NULL when the cost is, and in rows written before): the parts sum exactly to
    // cost_nano_usd (largest remainders, model-prices.ts costPartsNanoUsd); cache_savings_nano_usd is what
    // the cache reads saved against the input price. usage_rollups: the same, summed (0 for rows before).
    sql: `
      ALTER TABLE usage_records ADD COLUMN cache_write_tokens INTEGER;
      ALTER TABLE usage_records ADD COLUMN cache_write_1h_tokens INTEGER;
      ALTER TABLE usage_records ADD COLUMN input_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN cache_read_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN cache_write_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN cache_write_1h_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN output_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN reasoning_cost_nano_usd INTEGER;
      ALTER TABLE usage_records ADD COLUMN cache_savings_nano_usd INTEGER;
      ALTER TABLE usage_rollups ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN input_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN cache_read_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN cache_write_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN cache_write_1h_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN output_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN reasoning_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_rollups ADD COLUMN cache_savings_nano_usd INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: 'usage ledger: the trace id of a traced request',
    // The OpenTelemetry trace id (32 hex digits) of a request traced when it ran (issue 25), so a
    // support bundle leads to its trace; NULL with tracing off, for requests not sampled, and rows before.
    sql: `
      ALTER TABLE usage_records ADD COLUMN trace_id TEXT;
    `,
  },
  {
    version: 9,
    name: 'usage ledger: the finish reason of a request',
    // Why the answer ended as the client saw it (chat finish_reason, Messages stop_reason, a Response's
    // status), for the request's receipt (GET /v1/generation, issue 23); NULL when none was seen and for rows before.
    sql: `
      ALTER TABLE usage_records ADD COLUMN finish_reason TEXT;
    `,
  },
  {
    version: 10,
    name: 'thought signatures of the tool calls handed to clients',
    // Gemini's signature of each tool call the router issued, by account and call id, for a bounded
    // time (issue 31): a client that rebuilds its messages keeps only the id, and the next turn on any
    // instance looks the signature up by it. Rows of other accounts are never read.
    sql: `
      CREATE TABLE tool_call_signatures (
        account_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        signature TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        PRIMARY KEY (account_id, call_id)
      );
      CREATE INDEX tool_call_signatures_expiry ON tool_call_signatures (expires_at_ms);
    `,
  },
  {
    version: 11,
    name: 'usage ledger: server tool calls and their cost',
    // Server tools an upstream ran and bills per call (issue 30): the calls by tool name as JSON
    // (`{"web_search":3}`; NULL when none), and their cost at pricing.yaml's per-call prices, a part of
    // cost_nano_usd beside the token types (NULL with the other parts; 0 in rows written before).
    sql: `
      ALTER TABLE usage_records ADD COLUMN server_tool_calls TEXT;
      ALTER TABLE usage_records ADD COLUMN server_tools_cost_nano_usd INTEGER;
      ALTER TABLE usage_rollups ADD COLUMN server_tools_cost_nano_usd INTEGER NOT NULL DEFAULT 0;
    `,
  },
  ...laterMigrations.map(({ version, name, sqlite }) => ({ version, name, sql: sqlite })),
];
