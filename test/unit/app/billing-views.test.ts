import { describe, expect, it } from 'vitest';
import { subscriptionView } from '../../../src/app/billing/billing-views.js';
import type { BillingService } from '../../../src/billing/billing-service.js';
import type { BillingRecord } from '../../../src/stores/billing-store.js';
import type { Account } from '../../../src/stores/store.js';

// Only nextPlan is consulted; without a scheduled change it answers null.
const service = { nextPlan: () => null } as unknown as BillingService;
const account = { id: 'acct_1', plan: 'free' } as unknown as Account;
const record = (status: string | null) => ({ accountId: 'acct_1', status, nextChangeAt: null, cancelAtPeriodEnd: false, currentPeriodEnd: null }) as unknown as BillingRecord;

describe('subscription view', () => {
  it('labels the statuses Stripe documents', () => {
    expect(subscriptionView(service, new Map(), record('past_due'), account).statusLabel).toBe('Payment failed');
    expect(subscriptionView(service, new Map(), record(null), account).statusLabel).toBe('None');
  });

  it('shows an unknown status as stored, even one named like an Object property', () => {
    for (const status of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'something_new']) {
      expect(subscriptionView(service, new Map(), record(status), account).statusLabel).toBe(status);
    }
  });
});
