import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hygieneHints, keyState, parseLimit, utcLabel } from '../../../src/app/key-views.js';

const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);
const key = (over: Record<string, unknown> = {}) => ({
  id: 'key_1', accountId: 'acct_1', name: 'ci', prefix: 'sk_router_', last4: 'abcd', hash: 'h', createdAt: '2026-11-01T00:00:00.000Z', revokedAt: null, expiresAt: null, kind: 'inference' as const, disabledAt: null, updatedAt: null, workspaceId: null, personId: null, ...over,
});

describe('key views', () => {
  it('tells live, rotated-in-grace and retired keys apart', () => {
    expect(keyState(key(), NOW, false)).toBe('live');
    expect(keyState(key({ expiresAt: '2026-11-21T11:00:00.000Z' }), NOW, true)).toBe('grace');
    expect(keyState(key({ expiresAt: '2026-11-21T09:00:00.000Z' }), NOW, true)).toBe('retired');
    expect(keyState(key({ revokedAt: '2026-11-20T00:00:00.000Z' }), NOW, false)).toBe('retired');
  });

  it('flags keys without expiry, never used a week after creation, or unused for 30 days', () => {
    const created = '2026-11-01T00:00:00.000Z';
    const hints = hygieneHints(
      [
        { name: 'a', last4: '1111', createdAt: created, expiresAt: null, lastUsed: undefined },
        { name: 'b', last4: '2222', createdAt: created, expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: null },
        { name: 'c', last4: '3333', createdAt: created, expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: '2026-10-01T00:00:00.000Z' },
        { name: 'd', last4: '4444', createdAt: created, expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: '2026-11-20T00:00:00.000Z' },
        { name: 'fresh', last4: '5555', createdAt: '2026-11-20T00:00:00.000Z', expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: null },
        { name: 'e', last4: '6666', createdAt: created, expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: '2026-10-22T10:00:00.001Z' },
      ],
      NOW,
    );
    expect(hints).toEqual([
      'a (…1111) never expires: rotate it now and then, or create keys with an expiry.',
      'b (…2222) was created 20 days ago and has never been used: revoke it if nothing needs it.',
      'c (…3333) has not been used for 51 days: revoke it if nothing needs it any more.',
    ]);
    // Exactly 30 days idle is flagged; a millisecond less is not.
    expect(hygieneHints([{ name: 'x', last4: '7777', createdAt: created, expiresAt: '2027-01-01T00:00:00.000Z', lastUsed: '2026-10-22T10:00:00.000Z' }], NOW)).toHaveLength(1);
  });

  it('parses an optional limit as a whole number between 1 and the plan’s', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.integer({ min: 1, max: 1_000_000 }), (raw, max) => {
        const parsed = parseLimit(raw, max, 'Cap');
        if (raw.trim() === '') expect(parsed).toBeNull();
        else if (typeof parsed === 'number') expect(parsed >= 1 && parsed <= max && String(parsed) === raw.trim().replace(/^0+/, '')).toBe(true);
        else expect(parsed).toHaveProperty('problem');
      }),
    );
    expect(parseLimit(' 20 ', 300, 'Cap')).toBe(20);
    expect(parseLimit('301', 300, 'Cap')).toEqual({ problem: "Cap must not exceed the plan's 300." });
  });

  it('prints every instant the same way, in UTC', () => {
    expect(utcLabel('2026-11-21T10:05:59.999Z')).toBe('2026-11-21 10:05 UTC');
    expect(utcLabel(null)).toBe('—');
  });
});
