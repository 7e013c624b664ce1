/**
 * A member's support bundle holds the records of the requests they caused: a key handed from A to B
 * leaves A's earlier requests in A's bundle and out of B's (the person recorded on each request).
 */
import { describe, expect, it } from 'vitest';
import { createLedgerViews } from '../../../src/runtime/ledger-views.js';
import type { RouterDeps } from '../../../src/http/router-deps.js';
import type { LedgerRecord, LedgerStore } from '../../../src/stores/ledger-store.js';
import type { TeamDirectory } from '../../../src/usage/usage-attribution.js';

// Key key_1 was Ann's when she made req_1; it was handed to Ben, who made req_2 with it.
const records: Record<string, LedgerRecord[]> = {
  req_1: [{ requestId: 'req_1', call: 'main', keyId: 'key_1', personId: 'psn_ann', workspaceId: 'wks_1', accountId: 'acct_1' } as LedgerRecord],
  req_2: [{ requestId: 'req_2', call: 'main', keyId: 'key_1', personId: 'psn_ben', workspaceId: 'wks_1', accountId: 'acct_1' } as LedgerRecord],
};
const store = { findRecords: async ({ requestId }: { requestId: string }) => records[requestId] ?? [] } as unknown as LedgerStore;
const views = createLedgerViews({ usage: { store, ledger: null } as unknown as RouterDeps['usage'], clock: { now: () => Date.UTC(2026, 10, 29) } as RouterDeps['clock'] });
const directory: TeamDirectory = {
  keys: [{ keyId: 'key_1', personId: 'psn_ben', workspaceId: 'wks_1' }],
  people: new Map([['psn_ann', 'ann@example.com'], ['psn_ben', 'ben@example.com']]),
  workspaces: new Map([['wks_1', 'Default']]),
};
const bundleOf = async (personId: string, requestId: string) => (await views.supportBundle('acct_1', requestId, { directory, scope: { personId } }))?.request.requestId ?? null;

describe('a member\'s support bundle', () => {
  it('holds the requests the member caused, whoever holds the key now', async () => {
    expect(await bundleOf('psn_ann', 'req_1')).toBe('req_1');
    expect(await bundleOf('psn_ben', 'req_1')).toBeNull();
    expect(await bundleOf('psn_ben', 'req_2')).toBe('req_2');
    expect(await bundleOf('psn_ann', 'req_2')).toBeNull();
  });
});
