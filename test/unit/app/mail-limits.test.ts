import { describe, expect, it } from 'vitest';
import { ADDRESS_WINDOW_MS, MAIL_LIMITS, MAILS_PER_ADDRESS, MailLimits } from '../../../src/app/mail-limits.js';
import type { Mailer } from '../../../src/mail/mailer.js';
import { createMemoryRateLimiter } from '../../../src/stores/memory/create-memory-rate-limiter.js';
import type { RateLimiter } from '../../../src/stores/rate-limiter.js';
import { ManualClock } from '../../contracts/store-contract.js';

const noMail: Mailer = { sends: true, sendLater: () => {}, close: async () => {} };

describe('mail limits', () => {
  it('holds each kind to its count per recipient until its window passes; other recipients and kinds are apart', async () => {
    const clock = new ManualClock(0);
    const limits = new MailLimits(noMail, createMemoryRateLimiter(), clock);
    const allowed = async (kind: 'reset' | 'signup-attempt', to: string, times: number, address = '192.0.2.1') => {
      let count = 0;
      for (let i = 0; i < times; i++) if (await limits.allow(kind, to, `${address}${i % 2}`)) count++;
      return count;
    };
    expect(await allowed('reset', 'ada@example.com', 12)).toBe(MAIL_LIMITS.reset.perRecipient);
    expect(await allowed('signup-attempt', 'ada@example.com', 5)).toBe(MAIL_LIMITS['signup-attempt'].perRecipient);
    expect(await allowed('reset', 'bob@example.com', 1)).toBe(1);
    clock.advance(MAIL_LIMITS.reset.windowMs);
    expect(await allowed('reset', 'ada@example.com', 1)).toBe(1);
    expect(await allowed('signup-attempt', 'ada@example.com', 1)).toBe(0);
  });

  it('holds one client address to its hourly count across recipients, without using up their counts', async () => {
    const clock = new ManualClock(0);
    const limits = new MailLimits(noMail, createMemoryRateLimiter(), clock);
    for (let i = 0; i < MAILS_PER_ADDRESS; i++) expect(await limits.allow('reset', `user${i}@example.com`, '192.0.2.9')).toBe(true);
    expect(await limits.allow('reset', 'last@example.com', '192.0.2.9')).toBe(false);
    expect(await limits.allow('reset', 'last@example.com', '192.0.2.10')).toBe(true);
    clock.advance(ADDRESS_WINDOW_MS);
    expect(await limits.allow('reset', 'another@example.com', '192.0.2.9')).toBe(true);
  });

  it('counts an IPv6 /64 as one client address, as the sign-in throttle does', async () => {
    const limits = new MailLimits(noMail, createMemoryRateLimiter(), new ManualClock(0));
    // One household's /64 hands every device (and every request, with privacy addresses) a new address.
    for (let i = 0; i < MAILS_PER_ADDRESS; i++) expect(await limits.allow('reset', `user${i}@example.com`, `2001:db8:1:2::${(i + 1).toString(16)}`)).toBe(true);
    expect(await limits.allow('reset', 'last@example.com', '2001:db8:1:2:ffff::1')).toBe(false);
    expect(await limits.allow('reset', 'last@example.com', '2001:db8:1:3::1')).toBe(true);
  });

  it('counts in the shared limiter under hashed keys: two instances on one limiter share the counts', async () => {
    const shared = createMemoryRateLimiter();
    const keys: string[] = [];
    const spying: RateLimiter = { ...shared, admit: (key, ...rest) => (keys.push(key), shared.admit(key, ...rest)) };
    const clock = new ManualClock(0);
    const [one, two] = [new MailLimits(noMail, spying, clock), new MailLimits(noMail, spying, clock)];
    let sent = 0;
    for (let i = 0; i < 6; i++) if (await (i % 2 ? one : two).allow('verify', 'ada@example.com', '192.0.2.1')) sent++;
    expect(sent).toBe(MAIL_LIMITS.verify.perRecipient);
    expect(keys.join(' ')).not.toContain('ada@example.com');
    expect(keys.join(' ')).not.toContain('192.0.2.1');
  });
});
