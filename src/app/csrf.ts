/**
 * Cross-site request forgery defence for every state-changing request (all are POST): a browser that
 * says the request is cross-site (`Sec-Fetch-Site`) or names another origin (`Origin`) is refused, and
 * the form must carry a token: per session (an HMAC of the session id) once signed in, or a
 * double-submit cookie on the sign-in and sign-up forms.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getCookie, getRequestHeader, setCookie, type H3Event } from 'h3';

export class CsrfGuard {
  readonly cookieName: string;

  constructor(
    private readonly secret: string,
    private readonly appOrigin: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-router_csrf' : 'router_csrf';
  }

  /** Null when the request may change state, otherwise why not (for the log and the 403 page). */
  originProblem(event: H3Event): string | null {
    const site = getRequestHeader(event, 'sec-fetch-site');
    if (site === 'cross-site') return 'cross-site request';
    const origin = getRequestHeader(event, 'origin');
    if (origin !== undefined && origin !== this.appOrigin) return 'origin mismatch';
    return null;
  }

  sessionToken(sessionId: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${sessionId}`).digest('base64url');
  }

  /** The token for anonymous forms, set as a cookie the form must echo. */
  anonymousToken(event: H3Event): string {
    const existing = getCookie(event, this.cookieName);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomBytes(32).toString('base64url');
    setCookie(event, this.cookieName, token, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
    return token;
  }

  verify(expected: string, submitted: unknown): boolean {
    if (typeof submitted !== 'string') return false;
    const a = Buffer.from(expected);
    const b = Buffer.from(submitted);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  verifyAnonymous(event: H3Event, submitted: unknown): boolean {
    const cookie = getCookie(event, this.cookieName);
    return cookie !== undefined && this.verify(cookie, submitted);
  }
}
