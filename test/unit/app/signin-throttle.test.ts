import { describe, expect, it } from 'vitest';
import { FAILURES_PER_EMAIL, FAILURES_PER_IP, SigninThrottle, THROTTLE_WINDOW_MS } from '../../../src/app/signin-throttle.js';
import { ManualClock } from '../../contracts/store-contract.js';

describe('sign-in throttle', () => {
  it('stops one email after its failures, whatever the IP, until the window passes', () => {
    const clock = new ManualClock(0);
    const throttle = new SigninThrottle(clock);
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) throttle.fail(`10.0.0.${i}`, 'ada@example.com');
    expect(throttle.allows('10.9.9.9', 'ada@example.com')).toBe(false);
    expect(throttle.allows('10.9.9.9', 'bob@example.com')).toBe(true);
    clock.advance(THROTTLE_WINDOW_MS + 1);
    expect(throttle.allows('10.9.9.9', 'ada@example.com')).toBe(true);
  });

  it('stops one IP spraying many emails', () => {
    const throttle = new SigninThrottle(new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_IP; i++) throttle.fail('192.0.2.7', `user${i}@example.com`);
    expect(throttle.allows('192.0.2.7', 'fresh@example.com')).toBe(false);
    expect(throttle.allows('192.0.2.8', 'fresh@example.com')).toBe(true);
  });

  it('forgets an email’s failures after a successful sign-in', () => {
    const throttle = new SigninThrottle(new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_EMAIL - 1; i++) throttle.fail('192.0.2.1', 'ada@example.com');
    throttle.succeed('ada@example.com');
    throttle.fail('192.0.2.1', 'ada@example.com');
    expect(throttle.allows('192.0.2.1', 'ada@example.com')).toBe(true);
  });
});
