/**
 * Server-side sessions: a random 256-bit token in an HttpOnly cookie, only its hash in the store. Over
 * https the cookie is `__Host-` prefixed and Secure (bound to this host, path /); on http://localhost
 * the plain name is used for development. Sessions end after an idle and an absolute timeout, and
 * every sign-in starts a new one (no fixation).
 */
import { deleteCookie, getCookie, getRequestHeader, setCookie, type H3Event } from 'h3';
import type { AppConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { SessionRecord } from '../stores/account-auth-store.js';
import type { PersonRecord, Role } from '../stores/people-store.js';
import type { Account, Store } from '../stores/store.js';
import { hashToken, newToken } from '../core/secret-tokens.js';

export interface SignedIn {
  session: SessionRecord;
  /** The organization selected in this session. */
  account: Account;
  /** Who is signed in, and their role in `account`. */
  person: PersonRecord;
  role: Role;
}

/** Touching the session on every request would be a write per page view; once a minute is enough. */
const TOUCH_EVERY_MS = 60_000;

export class SessionManager {
  readonly cookieName: string;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly secure: boolean,
    private readonly clientAddress: (event: H3Event) => string | null,
  ) {
    this.cookieName = secure ? '__Host-router_session' : 'router_session';
  }

  /** A new session of `personId` with `accountId` (an organization they belong to) selected. */
  async start(event: H3Event, accountId: string, personId: string): Promise<SessionRecord> {
    const token = newToken();
    const userAgent = (getRequestHeader(event, 'user-agent') ?? '').slice(0, 200) || null;
    const session = await this.store.createSession({ accountId, personId, tokenHash: hashToken(token), userAgent, ip: this.clientAddress(event) });
    setCookie(event, this.cookieName, token, {
      httpOnly: true,
      secure: this.secure,
      sameSite: 'lax',
      path: '/',
      maxAge: this.config.sessionAbsoluteHours * 3600,
    });
    return session;
  }

  /** The signed-in account, or null (no cookie, unknown token, timed out). Expired sessions are deleted. */
  async resolve(event: H3Event): Promise<SignedIn | null> {
    const token = getCookie(event, this.cookieName);
    if (!token || token.length > 100) return null;
    const found = await this.store.findSessionByTokenHash(hashToken(token));
    if (!found) return null;
    const now = this.clock.now();
    const idle = now - Date.parse(found.session.lastSeenAt) > this.config.sessionIdleMinutes * 60_000;
    const tooOld = now - Date.parse(found.session.createdAt) > this.config.sessionAbsoluteHours * 3_600_000;
    if (idle || tooOld) {
      await this.store.deleteSession(found.account.id, found.session.id);
      this.clearCookie(event);
      return null;
    }
    const member = await this.member(found.session, found.account);
    if (!member) {
      // No longer a member of the selected organization (removed meanwhile): the session is over.
      await this.store.deleteSession(found.account.id, found.session.id);
      this.clearCookie(event);
      return null;
    }
    if (now - Date.parse(found.session.lastSeenAt) > TOUCH_EVERY_MS) {
      await this.store.touchSession(found.session.id, new Date(now).toISOString());
    }
    return { ...found, session: { ...found.session, personId: member.person.id }, ...member };
  }

  /**
   * The session's person and their role. A session the previous release made (no person, during a
   * rolling upgrade) belongs to the login of its account: that login is adopted and the session bound.
   */
  private async member(session: SessionRecord, account: Account): Promise<{ person: PersonRecord; role: Role } | null> {
    let personId = session.personId;
    if (personId === null) {
      const adopted = await this.store.adoptLogin(account.id);
      if (!adopted) return null;
      await this.store.bindSessionPerson(session.id, adopted.id);
      personId = adopted.id;
    }
    const [person, membership] = await Promise.all([this.store.getPerson(personId), this.store.getMembership(account.id, personId)]);
    return person && membership ? { person, role: membership.role } : null;
  }

  async end(event: H3Event, signedIn: SignedIn): Promise<void> {
    await this.store.deleteSession(signedIn.account.id, signedIn.session.id);
    this.clearCookie(event);
  }

  clearCookie(event: H3Event): void {
    deleteCookie(event, this.cookieName, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
  }
}
