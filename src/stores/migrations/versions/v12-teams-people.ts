/**
 * Teams (docs/teams.md): people who sign in, their memberships of organizations (an organization is an
 * `accounts` row) with a role, and invitations. Additive only, so the previous release keeps working on
 * this schema during a rolling upgrade: it still creates accounts with a login and no person, and still
 * creates sessions without one; this release adopts both on first use (PeopleStore.adoptLogin).
 *
 * Every login that exists becomes a person (same email, password hash and verification time) who owns
 * the login's account: each account is a one-person organization, and no key, limit, usage record or
 * bill changes. An account without a login (made by the CLI and never signed in to) gets its person when
 * a password is first set for it.
 *
 * people.password_hash is nullable only for symmetry with the login it may be adopted from later; every
 * person made by this release has one. api_keys.person_id: who made the key (null: the operator, the CLI,
 * or before teams). usage_records.person_id: the key's person when the request ran. account_sessions
 * .person_id: who is signed in; account_id stays the organization selected in that session.
 * org_invitations: single-use, expiring, revocable invitations (only the token's hash is stored).
 */
import type { VersionedMigration } from './versioned-migration.js';

/** The tables and columns, the same in both dialects but for the type of an instant. */
const schema = (time: 'TEXT' | 'TIMESTAMPTZ'): string => `
  ALTER TABLE accounts ADD COLUMN name TEXT;
  ALTER TABLE api_keys ADD COLUMN person_id TEXT;
  ALTER TABLE usage_records ADD COLUMN person_id TEXT;
  ALTER TABLE account_sessions ADD COLUMN person_id TEXT;

  CREATE TABLE people (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    email_verified_at ${time},
    created_at ${time} NOT NULL,
    updated_at ${time} NOT NULL
  );

  CREATE TABLE memberships (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    person_id TEXT NOT NULL REFERENCES people (id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    created_at ${time} NOT NULL,
    PRIMARY KEY (account_id, person_id)
  );
  CREATE INDEX memberships_person_id ON memberships (person_id);

  CREATE TABLE org_invitations (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    email TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    token_hash TEXT NOT NULL UNIQUE,
    invited_by TEXT,
    created_at ${time} NOT NULL,
    expires_at ${time} NOT NULL,
    sent_count INTEGER NOT NULL DEFAULT 1,
    last_sent_at ${time} NOT NULL,
    accepted_at ${time},
    accepted_by TEXT,
    revoked_at ${time}
  );
  CREATE INDEX org_invitations_account_id ON org_invitations (account_id, created_at);

`;

// Every login becomes a person owning the login's account; sessions name that person.
const sqlite = `${schema('TEXT')}
  INSERT INTO people (id, email, password_hash, email_verified_at, created_at, updated_at)
    SELECT 'psn_' || lower(hex(randomblob(12))), l.email, l.password_hash, l.email_verified_at, a.created_at, l.updated_at
    FROM account_logins l JOIN accounts a ON a.id = l.account_id;
  INSERT INTO memberships (account_id, person_id, role, created_at)
    SELECT l.account_id, p.id, 'owner', p.created_at FROM account_logins l JOIN people p ON p.email = l.email;
  UPDATE account_sessions SET person_id =
    (SELECT p.id FROM account_logins l JOIN people p ON p.email = l.email WHERE l.account_id = account_sessions.account_id);
`;

const postgres = `${schema('TIMESTAMPTZ')}
  INSERT INTO people (id, email, password_hash, email_verified_at, created_at, updated_at)
    SELECT 'psn_' || substr(md5(random()::text || clock_timestamp()::text || l.account_id), 1, 24), l.email, l.password_hash, l.email_verified_at, a.created_at, l.updated_at
    FROM account_logins l JOIN accounts a ON a.id = l.account_id;
  INSERT INTO memberships (account_id, person_id, role, created_at)
    SELECT l.account_id, p.id, 'owner', p.created_at FROM account_logins l JOIN people p ON p.email = l.email;
  UPDATE account_sessions s SET person_id = p.id FROM account_logins l JOIN people p ON p.email = l.email WHERE l.account_id = s.account_id;
`;

export const v12TeamsPeople: VersionedMigration = { version: 12, name: 'teams: people, memberships, invitations, attribution', sqlite, postgres };
