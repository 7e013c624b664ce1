/**
 * Sign-in throttling, counted in the router's RateLimiter (15-minute sliding windows), so every worker
 * and, with the Redis backend, every instance shares the counts.
 *
 * Failures are counted per email and per client address. Too many for one email means that account is
 * under attack: further attempts on it are refused before the password is checked, until the window
 * passes. Too many from one address never refuses correct credentials: an address may be shared (an
 * office, a proxy not listed in trustedProxies), so the address limit only changes how a wrong password
 * is answered there (429, "slow down"), never whether another account's owner can sign in.
 *
 * Keys are hashed: the limiter's store (Redis) never holds an email address.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { RateLimiter } from '../stores/rate-limiter.js';

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_ADDRESS = 20;

export class SigninThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
  ) {}

  /** False while this email has had too many failures: the attempt is refused unchecked. */
  async accountAllows(email: string): Promise<boolean> {
    return (await this.limiter.peek(emailKey(email), FAILURES_PER_EMAIL, this.clock.now(), THROTTLE_WINDOW_MS)).allowed;
  }

  /** False while this address has had too many failures (a wrong password there is answered 429). */
  async addressAllows(address: string | null): Promise<boolean> {
    return (await this.limiter.peek(addressKey(address), FAILURES_PER_ADDRESS, this.clock.now(), THROTTLE_WINDOW_MS)).allowed;
  }

  /** Counts one failure against the email and the address (a full window counts no more). */
  async fail(address: string | null, email: string): Promise<void> {
    const now = this.clock.now();
    await Promise.all([
      this.limiter.admit(emailKey(email), FAILURES_PER_EMAIL, now, THROTTLE_WINDOW_MS),
      this.limiter.admit(addressKey(address), FAILURES_PER_ADDRESS, now, THROTTLE_WINDOW_MS),
    ]);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');
const emailKey = (email: string) => `signin:email:${digest(email)}`;
const addressKey = (address: string | null) => `signin:address:${digest(address ?? '-')}`;
