/**
 * Cross-site request forgery defence for every state-changing request (all are POST): a browser that
 * says the request is cross-site (`Sec-Fetch-Site`) or names another origin (`Origin`) is refused, and
 * the form must carry a token: per session (an HMAC of the session id) once signed in, or a
 * double-submit cookie on the sign-in and sign-up forms.
 *
 * The origins accepted are appUrl's, and for a loopback appUrl the same scheme and port under every
 * loopback name (`localhost`, `127.0.0.1`, `[::1]`): the default appUrl says localhost while the start-up
 * log and README say 127.0.0.1, and both reach the same process on this machine only, so no other site
 * can use the alias. A non-loopback appUrl accepts exactly its own origin.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getCookie, getRequestHeader, setCookie, type H3Event } from 'h3';

export class CsrfGuard {
  readonly cookieName: string;
  readonly #origins: ReadonlySet<string>;

  constructor(
    private readonly secret: string,
    appOrigin: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-router_csrf' : 'router_csrf';
    this.#origins = new Set(acceptedOrigins(appOrigin));
  }

  /** Null when the request may change state, otherwise why not (for the log and the 403 page). */
  originProblem(event: H3Event): string | null {
    const site = getRequestHeader(event, 'sec-fetch-site');
    if (site === 'cross-site') return 'cross-site request';
    const origin = getRequestHeader(event, 'origin');
    if (origin !== undefined && !this.#origins.has(origin)) return 'origin mismatch';
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

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The origins the app's own pages post from: appUrl's, plus its loopback aliases when it is loopback. */
export function acceptedOrigins(appOrigin: string): string[] {
  const url = new URL(appOrigin);
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return [url.origin];
  return LOOPBACK_HOSTS.map((host) => new URL(`${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`).origin);
}
