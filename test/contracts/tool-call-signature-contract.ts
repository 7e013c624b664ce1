/**
 * What every Store must do with tool-call signatures (stores/tool-call-signature-store.ts), run against
 * SQLite and PostgreSQL: kept per account and call id, never read for another account, not read once
 * expired, swept as new ones are written, the newer value kept when a call id is written again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/stores/store.js';
import { ManualClock, type MakeStore } from './store-contract.js';

const NOW = Date.UTC(2026, 10, 15, 12, 0, 0);
const HOUR = 3_600_000;

export function runToolCallSignatureContract(name: string, makeStore: MakeStore): void {
  describe(`${name} tool-call signature contract`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore(new ManualClock(NOW));
    });
    afterEach(async () => store.close());

    const sorted = (rows: Array<{ callId: string; signature: string }>) => [...rows].sort((a, b) => a.callId.localeCompare(b.callId));

    it('returns the account’s own signatures among the ids asked, and none of another account’s', async () => {
      await store.putToolCallSignatures('acct_a', [{ callId: 'call_1', signature: 'sig-1' }, { callId: 'call_2', signature: 'sig-2' }], NOW + HOUR, NOW);
      await store.putToolCallSignatures('acct_b', [{ callId: 'call_3', signature: 'sig-3' }], NOW + HOUR, NOW);
      expect(sorted(await store.getToolCallSignatures('acct_a', ['call_1', 'call_2', 'call_3', 'call_9'], NOW))).toEqual([
        { callId: 'call_1', signature: 'sig-1' },
        { callId: 'call_2', signature: 'sig-2' },
      ]);
      expect(await store.getToolCallSignatures('acct_b', ['call_1', 'call_2'], NOW)).toEqual([]);
      expect(await store.getToolCallSignatures('acct_a', [], NOW)).toEqual([]);
    });

    it('keeps the newer value of a call id written again, and the same id under two accounts apart', async () => {
      await store.putToolCallSignatures('acct_a', [{ callId: 'call_1', signature: 'old' }], NOW + HOUR, NOW);
      await store.putToolCallSignatures('acct_a', [{ callId: 'call_1', signature: 'new' }], NOW + HOUR, NOW);
      await store.putToolCallSignatures('acct_b', [{ callId: 'call_1', signature: 'other' }], NOW + HOUR, NOW);
      expect(await store.getToolCallSignatures('acct_a', ['call_1'], NOW)).toEqual([{ callId: 'call_1', signature: 'new' }]);
      expect(await store.getToolCallSignatures('acct_b', ['call_1'], NOW)).toEqual([{ callId: 'call_1', signature: 'other' }]);
    });

    it('does not return an expired signature, and deletes expired rows when new ones are written', async () => {
      await store.putToolCallSignatures('acct_a', [{ callId: 'call_old', signature: 'sig-old' }], NOW + HOUR, NOW);
      expect(await store.getToolCallSignatures('acct_a', ['call_old'], NOW + HOUR - 1)).toHaveLength(1);
      expect(await store.getToolCallSignatures('acct_a', ['call_old'], NOW + HOUR)).toEqual([]);
      await store.putToolCallSignatures('acct_b', [{ callId: 'call_new', signature: 'sig-new' }], NOW + 3 * HOUR, NOW + 2 * HOUR);
      // Read as of before the expiry: only the sweep can have removed it.
      expect(await store.getToolCallSignatures('acct_a', ['call_old'], NOW)).toEqual([]);
    });

    it('keeps a long signature byte for byte', async () => {
      const long = 'Cq' + 'AbC+/='.repeat(2000);
      await store.putToolCallSignatures('acct_a', [{ callId: 'call_long', signature: long }], NOW + HOUR, NOW);
      expect(await store.getToolCallSignatures('acct_a', ['call_long'], NOW)).toEqual([{ callId: 'call_long', signature: long }]);
    });
  });
}
