import { describe, expect, it } from 'vitest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_EMAIL, SigninThrottle, THROTTLE_WINDOW_MS } from '../../../src/app/signin-throttle.js';
import { createMemoryRateLimiter } from '../../../src/stores/memory/create-memory-rate-limiter.js';
import type { RateLimiter } from '../../../src/stores/rate-limiter.js';
import { ManualClock } from '../../contracts/store-contract.js';

describe('sign-in throttle', () => {
  it('stops one email after its failures, whatever the address, until the 15-minute window passes', async () => {
    const clock = new ManualClock(0);
    const throttle = new SigninThrottle(createMemoryRateLimiter(), clock);
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await throttle.fail(`10.0.0.${i}`, 'ada@example.com');
    expect(await throttle.accountAllows('ada@example.com')).toBe(false);
    expect(await throttle.accountAllows('bob@example.com')).toBe(true);
    clock.advance(THROTTLE_WINDOW_MS - 1);
    expect(await throttle.accountAllows('ada@example.com')).toBe(false);
    clock.advance(1);
    expect(await throttle.accountAllows('ada@example.com')).toBe(true);
  });

  it('marks one address spraying many emails, without touching those emails or other addresses', async () => {
    const throttle = new SigninThrottle(createMemoryRateLimiter(), new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await throttle.fail('192.0.2.7', `user${i}@example.com`);
    expect(await throttle.addressAllows('192.0.2.7')).toBe(false);
    expect(await throttle.addressAllows('192.0.2.8')).toBe(true);
    expect(await throttle.accountAllows('fresh@example.com')).toBe(true);
    expect(await throttle.accountAllows('user0@example.com')).toBe(true);
  });

  it('counts in the shared limiter under hashed keys: two app instances on one limiter see each other’s failures', async () => {
    const shared = createMemoryRateLimiter();
    const asked: string[] = [];
    const spying: RateLimiter = { ...shared, admit: (key, ...rest) => (asked.push(key), shared.admit(key, ...rest)), peek: (key, ...rest) => (asked.push(key), shared.peek(key, ...rest)) };
    const clock = new ManualClock(0);
    const [one, two] = [new SigninThrottle(spying, clock), new SigninThrottle(spying, clock)];
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await (i % 2 ? one : two).fail('198.51.100.1', 'ada@example.com');
    expect(await one.accountAllows('ada@example.com')).toBe(false);
    expect(await two.accountAllows('ada@example.com')).toBe(false);
    expect(asked.join(' ')).not.toMatch(/ada|example|198\.51/);
  });
});
