/**
 * Post-redirect-get for the pages that show a new key once: the POST seals what to show (the key, a
 * notice or problem) into a short-lived HttpOnly cookie and answers 303; the GET that follows opens it and clears
 * it, so a reload shows the page without the key and never makes a second one. Sealed with AES-GCM
 * (core/secret-box.ts) under the app's secret and bound to the session, and a cookie (not process memory)
 * so the GET may land on any worker or instance. Without a server secret the app's secret is per
 * process, as for form tokens.
 */
import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3';
import { openSecret, sealSecret } from '../core/secret-box.js';
import type { FormState } from './form-state.js';

/** Long enough for the redirect, short enough that a forgotten cookie is soon useless. */
const FLASH_SECONDS = 120;

export interface ShownKey {
  key: string;
  name: string | null;
  expiresAt: string | null;
}

export interface Flash {
  newKey?: ShownKey;
  notice?: string;
  problem?: string;
  /** A form on the next page that answered a problem at its field (form-state.ts: never a secret value). */
  formState?: FormState;
}

export class KeyFlash {
  readonly cookieName: string;

  constructor(
    private readonly secret: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-router_flash' : 'router_flash';
  }

  put(event: H3Event, sessionId: string, flash: Flash): void {
    const sealed = sealSecret(JSON.stringify(flash), this.#keyFor(sessionId));
    setCookie(event, this.cookieName, sealed, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge: FLASH_SECONDS });
  }

  /** What the last POST left for this session (once), or an empty flash. */
  take(event: H3Event, sessionId: string): Flash {
    const sealed = getCookie(event, this.cookieName);
    if (sealed === undefined) return {};
    deleteCookie(event, this.cookieName, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
    try {
      const flash = JSON.parse(openSecret(sealed, this.#keyFor(sessionId))) as Flash;
      return {
        ...(typeof flash.notice === 'string' ? { notice: flash.notice } : {}),
        ...(typeof flash.problem === 'string' ? { problem: flash.problem } : {}),
        ...(flash.newKey ? { newKey: flash.newKey } : {}),
        ...(flash.formState ? { formState: flash.formState } : {}),
      };
    } catch {
      // Another session's, altered, or sealed before a restart without a server secret: nothing to show.
      return {};
    }
  }

  #keyFor(sessionId: string): string {
    return `${this.secret}\u0000key-flash\u0000${sessionId}`;
  }
}
