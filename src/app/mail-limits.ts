/**
 * How much mail a stranger can make the app send: every message a request without a password can cause
 * (a reset link, a verification link, the "someone tried to sign up with your email" notice) is counted
 * per recipient and per client address in the router's RateLimiter, the one the sign-in throttle uses,
 * so every worker and, with the Redis backend, every instance shares the counts. Over a limit the page
 * answers exactly as usual (nothing tells which addresses have accounts) and the mail is not sent.
 *
 * Keys are hashed: the limiter's store (Redis) never holds an email address.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { MailMessage, Mailer } from '../mail/mailer.js';
import type { RateLimiter } from '../stores/rate-limiter.js';
import { countingUnit } from '../core/proxy-trust.js';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

export type StrangerMail = 'reset' | 'verify' | 'signup-attempt' | 'invite' | 'support';

/** Per recipient and kind (docs/app.md#email). A verification link mailed at sign-up counts with its resends. */
export const MAIL_LIMITS: Readonly<Record<StrangerMail, { perRecipient: number; windowMs: number }>> = {
  reset: { perRecipient: 3, windowMs: HOUR_MS },
  verify: { perRecipient: 3, windowMs: HOUR_MS },
  'signup-attempt': { perRecipient: 1, windowMs: DAY_MS },
  // An organization's invitations (first send and re-sends) to one address: a member cannot flood a stranger's inbox.
  invite: { perRecipient: 3, windowMs: HOUR_MS },
  // The support form: counted per person who writes (the key passed as `recipient` is the sender's email),
  // since every message goes to the one operator address and counting that would let one person silence all.
  support: { perRecipient: 5, windowMs: HOUR_MS },
};
/** Mails of every kind together that one client address (an IPv6 /64 counted as one, as the sign-in throttle does) may cause in an hour. */
export const MAILS_PER_ADDRESS = 20;
export const ADDRESS_WINDOW_MS = HOUR_MS;

export class MailLimits {
  constructor(
    private readonly mail: Mailer,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
  ) {}

  /**
   * The one way a page sends mail a stranger can cause: off the request path (Mailer.sendLater), counted
   * before anything is looked up or issued, so over a limit no link is made (the last one sent still works).
   */
  sendLater(label: string, kind: StrangerMail, recipient: string, address: string | null, compose: () => Promise<MailMessage | null>): void {
    this.mail.sendLater(label, async () => ((await this.allow(kind, recipient, address)) ? compose() : null));
  }

  /**
   * True, and counted, when one more mail of this kind to `recipient` (normalized) asked from `address`
   * is within both limits. A request refused by its address's limit counts nothing against the recipient.
   */
  async allow(kind: StrangerMail, recipient: string, address: string | null): Promise<boolean> {
    const now = this.clock.now();
    if (!(await this.limiter.admit(`mail:from:${digest(countingUnit(address) ?? '-')}`, MAILS_PER_ADDRESS, now, ADDRESS_WINDOW_MS)).allowed) return false;
    const limit = MAIL_LIMITS[kind];
    return (await this.limiter.admit(`mail:${kind}:to:${digest(recipient)}`, limit.perRecipient, now, limit.windowMs)).allowed;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');
