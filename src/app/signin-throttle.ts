/**
 * Sign-in throttling with device cookies (OWASP's pattern), counted in the router's RateLimiter
 * (15-minute sliding windows), so every worker and, with the Redis backend, every instance shares the
 * counts.
 *
 * A browser whose device cookie vouches for the account (it signed in to it before, device-cookie.ts) is
 * a known device: its failures count against that cookie and that account only, and only they can stop
 * it, so no stranger's failures lock the owner out of their own browser. Every other attempt is from an
 * unknown device: its failures count against the email and against the client address (an IPv6 address
 * by its /64), and once either is over its limit every unknown-device attempt on that email or from that
 * address is refused, the correct password included, before the password is checked: guessing one
 * account and spraying one password across many both stop. The refused owner gets in through a reset
 * link, whose sign-in leaves a device cookie.
 *
 * Keys are hashed: the limiter's store (Redis) never holds an email address, a client address or a device id.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { countingUnit } from '../core/proxy-trust.js';
import type { RateLimiter } from '../stores/rate-limiter.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_ADDRESS = 20;
/** A known device's own typos: more room than a stranger gets, still a handful of guesses for a stolen cookie. */
export const FAILURES_PER_DEVICE = 10;

export interface SigninAttempt {
  email: string;
  /** The client's address through the trusted proxies (null without a peer). */
  address: string | null;
  /** The device id, when the request's device cookie vouches for the account signed in to; otherwise null (an unknown device). */
  knownDevice: string | null;
  /** The account the email belongs to; null for an email without one. */
  accountId: string | null;
}

/** Why an attempt is refused unchecked; null when its password may be checked. */
export type SigninRefusal = 'device' | 'email' | 'address' | null;

export class SigninThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
  ) {}

  /** Asked before the password is checked: a refused attempt is answered 429 whatever its password. */
  async refusal(attempt: SigninAttempt): Promise<SigninRefusal> {
    const now = this.clock.now();
    const peek = (key: string, limit: number) => this.limiter.peek(key, limit, now, THROTTLE_WINDOW_MS).then((decision) => decision.allowed);
    const device = deviceKey(attempt);
    if (device) return (await peek(device, FAILURES_PER_DEVICE)) ? null : 'device';
    const [emailAllowed, addressAllowed] = await Promise.all([peek(emailKey(attempt.email), FAILURES_PER_EMAIL), peek(addressKey(attempt.address), FAILURES_PER_ADDRESS)]);
    return !emailAllowed ? 'email' : !addressAllowed ? 'address' : null;
  }

  /** Counts one wrong password: against the device cookie when known, otherwise against the email and the address (a full window counts no more). */
  async fail(attempt: SigninAttempt): Promise<void> {
    const now = this.clock.now();
    const count = (key: string, limit: number) => this.limiter.admit(key, limit, now, THROTTLE_WINDOW_MS);
    const device = deviceKey(attempt);
    if (device) {
      await count(device, FAILURES_PER_DEVICE);
      return;
    }
    await Promise.all([count(emailKey(attempt.email), FAILURES_PER_EMAIL), count(addressKey(attempt.address), FAILURES_PER_ADDRESS)]);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');
const emailKey = (email: string) => `signin:email:${digest(email)}`;
const addressKey = (address: string | null) => `signin:address:${digest(countingUnit(address) ?? '-')}`;
/** Per device and account, as OWASP counts per device cookie: the cookie's entries for other accounts are not touched. */
const deviceKey = (attempt: SigninAttempt) =>
  attempt.knownDevice !== null && attempt.accountId !== null ? `signin:device:${digest(`${attempt.knownDevice}:${attempt.accountId}`)}` : null;
