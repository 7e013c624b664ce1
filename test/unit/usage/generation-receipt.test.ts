import { describe, expect, it } from 'vitest';
import { generationReceipt } from '../../../src/usage/generation-receipt.js';
import { ledgerRecord } from '../../contracts/ledger-store-contract.js';

describe('a request’s receipt from its ledger records', () => {
  it('is undefined without the request’s own record', () => {
    expect(generationReceipt([])).toBeUndefined();
    expect(generationReceipt([ledgerRecord({ call: 'judge' })])).toBeUndefined();
  });

  it('sums the cost of every call of a fusion request and lists the others; an unknown cost makes the total unknown', () => {
    const startedAt = '2026-11-15T12:00:00.000Z';
    const main = ledgerRecord({ requestId: 'req_f', startedAt, costNanoUsd: 1000 });
    const judge = ledgerRecord({ requestId: 'req_f', startedAt, call: 'judge', costNanoUsd: 250, providerId: 'anthropic', upstreamModel: 'claude' });
    const { data } = generationReceipt([judge, main])!;
    expect(data.total_cost).toBe(1250 / 1e9);
    expect(data.calls).toEqual([expect.objectContaining({ call: 'judge', provider_name: 'anthropic', total_cost: 250 / 1e9 })]);
    const unpriced = ledgerRecord({ requestId: 'req_f', startedAt, call: 'panel-1', costNanoUsd: null });
    expect(generationReceipt([main, judge, unpriced])!.data.total_cost).toBeNull();
  });

  it('takes the newest request when a client reused its request id', () => {
    const older = ledgerRecord({ requestId: 'mine', startedAt: '2026-11-15T12:00:00.000Z', upstreamModel: 'old' });
    const newer = ledgerRecord({ requestId: 'mine', startedAt: '2026-11-15T13:00:00.000Z', upstreamModel: 'new' });
    expect(generationReceipt([older, newer])!.data.model).toBe('new');
    expect(generationReceipt([newer, older])!.data.model).toBe('new');
  });
});
