import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAILURES_PER_ADDRESS, FAILURES_PER_DEVICE, FAILURES_PER_EMAIL, SigninThrottle, THROTTLE_WINDOW_MS, type SigninAttempt } from '../../../src/app/signin-throttle.js';
import { createMemoryRateLimiter } from '../../../src/stores/memory/create-memory-rate-limiter.js';
import type { RateLimiter } from '../../../src/stores/rate-limiter.js';
import { ManualClock } from '../../contracts/store-contract.js';

const stranger = (email: string, address: string | null, accountId: string | null = null): SigninAttempt => ({ email, address, accountId, knownDevice: null });
const owner = (email: string, address: string, accountId: string, device = 'device-of-the-owner-0123'): SigninAttempt => ({ email, address, accountId, knownDevice: device });

describe('sign-in throttle', () => {
  it('refuses an email from unknown devices after its failures, whatever the address, until the 15-minute window passes', async () => {
    const clock = new ManualClock(0);
    const throttle = new SigninThrottle(createMemoryRateLimiter(), clock);
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await throttle.fail(stranger('ada@example.com', `10.0.0.${i}`, 'acct_ada'));
    expect(await throttle.refusal(stranger('ada@example.com', '10.0.0.99', 'acct_ada'))).toBe('email');
    expect(await throttle.refusal(stranger('bob@example.com', '10.0.0.99'))).toBeNull();
    clock.advance(THROTTLE_WINDOW_MS - 1);
    expect(await throttle.refusal(stranger('ada@example.com', '10.0.0.99', 'acct_ada'))).toBe('email');
    clock.advance(1);
    expect(await throttle.refusal(stranger('ada@example.com', '10.0.0.99', 'acct_ada'))).toBeNull();
  });

  it('a known device is refused only by its own failures, and its failures count against no one else', async () => {
    const throttle = new SigninThrottle(createMemoryRateLimiter(), new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await throttle.fail(stranger('ada@example.com', '192.0.2.7', 'acct_ada'));
    expect(await throttle.refusal(owner('ada@example.com', '192.0.2.7', 'acct_ada'))).toBeNull();
    for (let i = 0; i < FAILURES_PER_DEVICE - 1; i++) await throttle.fail(owner('ada@example.com', '198.51.100.1', 'acct_ada'));
    expect(await throttle.refusal(owner('ada@example.com', '198.51.100.1', 'acct_ada'))).toBeNull();
    expect(await throttle.refusal(stranger('bob@example.com', '198.51.100.1'))).toBeNull();
    await throttle.fail(owner('ada@example.com', '198.51.100.1', 'acct_ada'));
    expect(await throttle.refusal(owner('ada@example.com', '198.51.100.1', 'acct_ada'))).toBe('device');
    // The same browser on another account it knows is counted apart; another browser of the owner too.
    expect(await throttle.refusal(owner('bob@example.com', '198.51.100.1', 'acct_bob'))).toBeNull();
    expect(await throttle.refusal(owner('ada@example.com', '198.51.100.1', 'acct_ada', 'another-device-of-ada-01'))).toBeNull();
  });

  it('refuses one address spraying many emails for every email, without touching those emails or other addresses', async () => {
    const throttle = new SigninThrottle(createMemoryRateLimiter(), new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await throttle.fail(stranger(`user${i}@example.com`, '192.0.2.7'));
    expect(await throttle.refusal(stranger('fresh@example.com', '192.0.2.7'))).toBe('address');
    expect(await throttle.refusal(stranger('fresh@example.com', '192.0.2.8'))).toBeNull();
    expect(await throttle.refusal(stranger('user0@example.com', '192.0.2.8'))).toBeNull();
  });

  it('counts an IPv6 address by its /64: addresses in one /64 share a count, the next /64 has its own', async () => {
    const throttle = new SigninThrottle(createMemoryRateLimiter(), new ManualClock(0));
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await throttle.fail(stranger(`user${i}@example.com`, `2001:db8:1:2::${(i + 1).toString(16)}`));
    expect(await throttle.refusal(stranger('fresh@example.com', '2001:db8:1:2:ffff:ffff:ffff:ffff'))).toBe('address');
    expect(await throttle.refusal(stranger('fresh@example.com', '2001:db8:1:3::1'))).toBeNull();
  });

  it('counts in the shared limiter under hashed keys: two app instances on one limiter see each other’s failures', async () => {
    const shared = createMemoryRateLimiter();
    const asked: string[] = [];
    const spying: RateLimiter = { ...shared, admit: (key, ...rest) => (asked.push(key), shared.admit(key, ...rest)), peek: (key, ...rest) => (asked.push(key), shared.peek(key, ...rest)) };
    const clock = new ManualClock(0);
    const [one, two] = [new SigninThrottle(spying, clock), new SigninThrottle(spying, clock)];
    for (let i = 0; i < FAILURES_PER_EMAIL; i++) await (i % 2 ? one : two).fail(stranger('ada@example.com', '198.51.100.1'));
    await one.fail(owner('ada@example.com', '198.51.100.1', 'acct_ada'));
    expect(await one.refusal(stranger('ada@example.com', '203.0.113.1'))).toBe('email');
    expect(await two.refusal(stranger('ada@example.com', '203.0.113.1'))).toBe('email');
    expect(asked.join(' ')).not.toMatch(/ada|example|198\.51|device-of/);
  });

  it('whatever the failures, a refusal names a limit that the failures filled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ email: fc.constantFrom('a@x.io', 'b@x.io'), address: fc.constantFrom('192.0.2.1', '2001:db8::1', '2001:db8::2'), known: fc.boolean() }), { maxLength: 40 }), async (failures) => {
        const throttle = new SigninThrottle(createMemoryRateLimiter(), new ManualClock(0));
        const attempt = (f: (typeof failures)[number]): SigninAttempt => (f.known ? owner(f.email, f.address, `acct_${f.email}`) : stranger(f.email, f.address, `acct_${f.email}`));
        for (const f of failures) await throttle.fail(attempt(f));
        const count = (match: (f: (typeof failures)[number]) => boolean) => failures.filter(match).length;
        for (const f of failures) {
          const refusal = await throttle.refusal(attempt(f));
          const deviceFull = count((g) => g.known && g.email === f.email) >= FAILURES_PER_DEVICE;
          const emailFull = count((g) => !g.known && g.email === f.email) >= FAILURES_PER_EMAIL;
          const addressFull = count((g) => !g.known && (g.address === f.address || (g.address !== '192.0.2.1' && f.address !== '192.0.2.1'))) >= FAILURES_PER_ADDRESS;
          expect(refusal).toBe(f.known ? (deviceFull ? 'device' : null) : emailFull ? 'email' : addressFull ? 'address' : null);
        }
      }),
      { numRuns: 50 },
    );
  });
});
