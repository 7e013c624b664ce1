/**
 * What the account web app (src/app/) stores beyond accounts and keys: sign-in credentials, server-side
 * sessions, single-use invite and reset links, and audit events of its own (sign-ins, password changes).
 * Every Store implements it (SQLite and PostgreSQL); only hashes of tokens and passwords are stored.
 */
import type { Account } from './account.js';

export interface LoginRecord {
  accountId: string;
  /** Normalized (trimmed, lower case): one login per address. */
  email: string;
  /** The encoded password hash with its parameters (app/password-hashing.ts). */
  passwordHash: string;
  updatedAt: string;
  /** When the address was confirmed through a mailed link (or a link from the CLI); null until then. */
  emailVerifiedAt: string | null;
}

export interface SessionRecord {
  id: string;
  /** The organization selected in this session. */
  accountId: string;
  /** Who signed in (teams); null for a session an older release made (adopted on first use). */
  personId: string | null;
  /** SHA-256 of the session token; the token itself lives only in the browser's cookie. */
  tokenHash: string;
  createdAt: string;
  lastSeenAt: string;
  /** Shown in the sessions list so a person recognizes their devices; bounded in length. */
  userAgent: string | null;
  ip: string | null;
}

/** `verify` confirms the address of an existing login (email verification). */
export type LinkKind = 'invite' | 'reset' | 'verify';

export interface LinkTokenRecord {
  id: string;
  kind: LinkKind;
  email: string;
  /** The account a reset link is for; null for an invite (the account is created on use). */
  accountId: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** Sign-up (or a password set through a link) for an address another login already has. */
export class EmailTakenError extends Error {
  constructor() {
    super('an account with this email address already exists');
    this.name = 'EmailTakenError';
  }
}

export interface AccountAuthStore {
  /** Account and login in one transaction; throws EmailTakenError when the address has a login. */
  createAccountWithLogin(input: { email: string; plan: string; passwordHash: string }, actor: string): Promise<Account>;
  findLoginByEmail(email: string): Promise<{ login: LoginRecord; account: Account } | null>;
  getLogin(accountId: string): Promise<LoginRecord | null>;
  /** Creates or replaces the account's login (a CLI-created account sets its first password this way). */
  setPassword(input: { accountId: string; email: string; passwordHash: string }, actor: string): Promise<void>;
  /** Marks the login's address confirmed (keeps the first time). */
  markEmailVerified(accountId: string, at: string): Promise<void>;
  /** Accounts whose contact email matches (case-insensitively), for CLI reset links. */
  findAccountsByEmail(email: string): Promise<Account[]>;

  createSession(input: { accountId: string; personId?: string | null; tokenHash: string; userAgent: string | null; ip: string | null }): Promise<SessionRecord>;
  findSessionByTokenHash(tokenHash: string): Promise<{ session: SessionRecord; account: Account } | null>;
  touchSession(id: string, at: string): Promise<void>;
  listSessions(accountId: string): Promise<SessionRecord[]>;
  /** Scoped to the account: an id of another account's session deletes nothing. */
  deleteSession(accountId: string, id: string): Promise<boolean>;
  /** Ends every session of the account except `exceptId`; returns how many ended. */
  deleteSessions(accountId: string, exceptId?: string): Promise<number>;

  /**
   * A new link replaces the unused ones of the same kind for the same email (they expire now), in one
   * transaction: however often a link is asked for, only the newest one works.
   */
  createLinkToken(input: { kind: LinkKind; email: string; accountId: string | null; tokenHash: string; expiresAt: string }, actor: string): Promise<LinkTokenRecord>;
  /** The link if it is unused and unexpired at `nowIso`, without using it (to show its form). */
  peekLinkToken(tokenHash: string, nowIso: string): Promise<LinkTokenRecord | null>;
  /** Marks the link used and returns it, atomically: of two concurrent uses exactly one succeeds. */
  consumeLinkToken(tokenHash: string, nowIso: string): Promise<LinkTokenRecord | null>;

  /** An audit event that no other mutation writes (sign-in attempts, sign-outs). Details must hold no secret. */
  recordAuditEvent(input: { actor: string; action: string; accountId: string | null; details: Record<string, unknown> }): Promise<void>;
}

/** How emails are compared everywhere: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
