/**
 * The browser's device cookie (OWASP's "device cookies" against online guessing). It holds a random
 * device id and, for each account signed in to from this browser (the latest MAX_ACCOUNTS), a MAC of
 * that id and the account id under the server secret: `<deviceId>.<mac>.<mac>…`. Only the server can
 * make an entry, and an entry vouches for one account on one device, so a stranger can neither forge
 * one nor carry one over to another account. The sign-in throttle exempts a browser that presents an
 * entry for the account it signs in to from the limits strangers fill (signin-throttle.ts); the
 * new-device notes read the same device id.
 *
 * Without a server secret the MACs are keyed per process (as the form tokens are): a restart or another
 * worker treats the browser as unknown until its next sign-in there.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { getCookie, setCookie, type H3Event } from 'h3';
import { newToken } from '../core/secret-tokens.js';

/** Accounts remembered per browser: enough for a few people sharing one, bounded so the cookie stays small. */
export const MAX_ACCOUNTS = 5;
const COOKIE_DAYS = 400;
const DEVICE_ID = /^[A-Za-z0-9_-]{20,100}$/;
const MAC = /^[A-Za-z0-9_-]{22}$/;

/** What a request's device cookie says, checked: the device id, and the MACs it carries (not yet matched to an account). */
export interface PresentedDevice {
  deviceId: string;
  macs: readonly string[];
}

export class DeviceCookies {
  readonly cookieName: string;

  constructor(
    private readonly secret: string,
    private readonly secure: boolean,
  ) {
    this.cookieName = secure ? '__Host-router_device' : 'router_device';
  }

  /** The cookie's device id and entries; null without a well-formed cookie. Extra entries past the bound are ignored. */
  read(event: H3Event): PresentedDevice | null {
    return parseDeviceCookie(getCookie(event, this.cookieName));
  }

  /** True when the request's cookie carries this server's entry for `accountId` (the browser signed in to it before). */
  vouchesFor(presented: PresentedDevice | null, accountId: string): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.mac(presented.deviceId, accountId));
    return presented.macs.some((mac) => timingSafeEqual(Buffer.from(mac), expected));
  }

  /** After a sign-in: the account's entry goes first (the oldest beyond MAX_ACCOUNTS is dropped). Returns the device id. */
  remember(event: H3Event, accountId: string): string {
    const presented = this.read(event);
    const deviceId = presented?.deviceId ?? newToken();
    const entry = this.mac(deviceId, accountId);
    const macs = [entry, ...(presented?.macs ?? []).filter((mac) => mac !== entry)].slice(0, MAX_ACCOUNTS);
    setCookie(event, this.cookieName, [deviceId, ...macs].join('.'), { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', maxAge: COOKIE_DAYS * 86_400 });
    return deviceId;
  }

  /** 128 bits of HMAC-SHA-256 over the pair, under a label of its own so no other MAC of the secret can pass for it. */
  mac(deviceId: string, accountId: string): string {
    return createHmac('sha256', this.secret).update(`signin-device:${deviceId}:${accountId}`).digest().subarray(0, 16).toString('base64url');
  }
}

/** `<deviceId>[.<mac>…]`; a cookie from before the entries (a bare id) is a device with none. */
export function parseDeviceCookie(value: string | undefined): PresentedDevice | null {
  if (!value || value.length > 100 + MAX_ACCOUNTS * 23) return null;
  const [deviceId = '', ...macs] = value.split('.');
  if (!DEVICE_ID.test(deviceId)) return null;
  return { deviceId, macs: macs.slice(0, MAX_ACCOUNTS).filter((mac) => MAC.test(mac)) };
}
