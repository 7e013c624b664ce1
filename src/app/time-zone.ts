/**
 * The person's own time zone, one mechanism for every page that shows times: any signed-in page accepts
 * `?tz=<IANA zone>` (the usage page's zone field, the small zone form on the keys and security pages,
 * and app.js's "Use my time zone" button, which fills in the browser's own zone), remembers a valid one
 * in a cookie for a year, and shows its times in it; UTC until one is chosen. A cookie, not an account
 * setting: the zone belongs to the device a person is reading on. Not a secret, but HttpOnly all the same.
 */
import { getCookie, getQuery, setCookie, type H3Event } from 'h3';
import { timeZoneNames, zonedLabel } from './usage-views.js';

const YEAR_SECONDS = 365 * 86_400;
const listed = new Set(timeZoneNames());

/** A zone this Node knows, listed or an alias ICU accepts (browsers report `Asia/Kathmandu`, ICU lists `Asia/Katmandu`). */
export function isKnownZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  if (listed.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export class ZonePreference {
  readonly cookieName: string;

  constructor(private readonly secure: boolean) {
    this.cookieName = secure ? '__Host-router_tz' : 'router_tz';
  }

  /** The zone this request's page shows times in: a valid `?tz=` (then remembered), else the remembered one, else UTC. */
  resolve(event: H3Event): string {
    const asked = getQuery(event).tz;
    const remembered = getCookie(event, this.cookieName);
    if (isKnownZone(asked)) {
      if (asked !== remembered) setCookie(event, this.cookieName, asked, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge: YEAR_SECONDS });
      return asked;
    }
    return isKnownZone(remembered) ? remembered : 'UTC';
  }
}

/** `2026-11-21 11:05 Europe/Berlin` (`… UTC` in UTC, as the pages always wrote); `—` for none. */
export function zonedTime(iso: string | null, zone: string): string {
  if (iso === null) return '—';
  return `${zonedLabel(iso, zone)} ${zone}`;
}
