/**
 * A form posted after the session ended keeps its input: the POST that finds no session seals the
 * form's non-secret fields (form-state.ts `keptValues`: never a password, a key or a token) into a
 * short-lived HttpOnly cookie and sends the person to sign in; the page they return to opens it once
 * and puts the input back into the same form. Session-independent (there is no session to bind to),
 * sealed with AES-GCM under the app's secret like the key flash (key-flash.ts), and bound to the page
 * it is for, so no other page consumes it.
 */
import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3';
import { openSecret, sealSecret } from '../core/secret-box.js';
import { keptValues, type FormState } from './form-state.js';

/** Time enough to sign in (or get a reset link) again; short enough that a forgotten cookie is soon useless. */
const KEPT_SECONDS = 15 * 60;
/** Cookies stay far below the 4 KB browsers keep: a larger form keeps only what fits. */
const MAX_SEALED_LENGTH = 3500;

interface Kept {
  /** The page the form is on (path and query), where sign-in returns to. */
  page: string;
  /** The form's action path. */
  action: string;
  values: Record<string, string>;
}

export class KeptForms {
  readonly cookieName: string;

  constructor(
    private readonly secret: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-router_kept_form' : 'router_kept_form';
  }

  /** Keep what `form` may keep for `page`; fields are dropped from the end until it fits a cookie. */
  put(event: H3Event, page: string, action: string, form: Readonly<Record<string, string>>): void {
    const values = keptValues(form);
    const names = Object.keys(values);
    let sealed = this.#seal({ page, action, values });
    while (sealed.length > MAX_SEALED_LENGTH && names.length > 0) {
      delete values[names.pop()!];
      sealed = this.#seal({ page, action, values });
    }
    setCookie(event, this.cookieName, sealed, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge: KEPT_SECONDS });
  }

  /** The kept input if it is for `page` (once: the cookie is cleared), as the state `it.form` reads; else null. */
  take(event: H3Event, page: string): FormState | null {
    const sealed = getCookie(event, this.cookieName);
    if (sealed === undefined) return null;
    let kept: Kept;
    try {
      kept = JSON.parse(openSecret(sealed, this.#key())) as Kept;
    } catch {
      // Altered, or sealed before a restart without a server secret: nothing to restore.
      this.#clear(event);
      return null;
    }
    if (kept.page !== page || typeof kept.action !== 'string' || typeof kept.values !== 'object' || kept.values === null) return null;
    this.#clear(event);
    return { action: kept.action, values: keptValues(kept.values), errors: {} };
  }

  #seal(kept: Kept): string {
    return sealSecret(JSON.stringify(kept), this.#key());
  }

  #clear(event: H3Event): void {
    deleteCookie(event, this.cookieName, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
  }

  #key(): string {
    return `${this.secret}\u0000kept-form`;
  }
}
