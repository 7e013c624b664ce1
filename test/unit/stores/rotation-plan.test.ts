import { describe, expect, it } from 'vitest';
import { planRotation, type RotatingKey } from '../../../src/stores/key-lifecycle.js';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const replacement = { name: 'laptop', hash: 'h', last4: 'abcd' };
const key = (overrides: Partial<RotatingKey> = {}): RotatingKey => ({ id: 'key_old', accountId: 'acct_1', revoked: false, expiresAtMs: null, expiresAt: null, personId: 'psn_1', ...overrides });
const plan = (old: RotatingKey, graceSeconds: number) => planRotation({ old, replacement, graceSeconds, nowMs: NOW, newKeyId: 'key_new' });

describe('planRotation', () => {
  it('with no grace revokes the old key now; the replacement is new and says where it came from', () => {
    expect(plan(key(), 0)).toEqual({
      retireOld: { revokedAt: '2026-11-21T10:00:00.000Z' },
      newKey: { id: 'key_new', accountId: 'acct_1', name: 'laptop', hash: 'h', last4: 'abcd', createdAt: '2026-11-21T10:00:00.000Z', expiresAt: null, personId: 'psn_1' },
      copyFromKeyId: 'key_old',
      audit: [
        { action: 'key.create', accountId: 'acct_1', keyId: 'key_new', details: { name: 'laptop', rotatedFrom: 'key_old' } },
        { action: 'key.rotate', accountId: 'acct_1', keyId: 'key_old', details: { replacementKeyId: 'key_new', graceSeconds: 0 } },
      ],
    });
  });

  it('with a grace lets the old key expire at its end, never later than it would have, and the replacement keeps the old expiry', () => {
    expect(plan(key(), 3600).retireOld).toEqual({ expiresAt: '2026-11-21T11:00:00.000Z' });
    const soon = key({ expiresAtMs: NOW + 60_000, expiresAt: '2026-11-21T10:01:00.000Z' });
    expect(plan(soon, 3600).retireOld).toEqual({ expiresAt: '2026-11-21T10:01:00.000Z' });
    expect(plan(soon, 3600).newKey.expiresAt).toBe('2026-11-21T10:01:00.000Z');
  });

  it('refuses a negative grace and a key that is revoked or already expired', () => {
    expect(() => plan(key(), -1)).toThrow(/grace period/);
    expect(() => plan(key(), Number.NaN)).toThrow(/grace period/);
    expect(() => plan(key({ revoked: true }), 0)).toThrow(/already revoked/);
    expect(() => plan(key({ expiresAtMs: NOW, expiresAt: '2026-11-21T10:00:00.000Z' }), 0)).toThrow(/already expired/);
  });
});
