/**
 * What every way of sharing credential circuits must show (memory in one process, a cluster's primary,
 * Redis): two workers or instances, each with its own CredentialHealth, see one verdict on a key, and one
 * account's verdict never reaches another account's key. `makePair` returns two connected healths on a
 * shared clock and a stop; the suite stops them. Sharing may take a moment (IPC, pub/sub): `eventually`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialHealth } from '../../src/routing/credential-health.js';

export interface CredentialCircuitPair {
  a: CredentialHealth;
  b: CredentialHealth;
  advance(ms: number): void;
  stop(): Promise<void>;
}

export type MakeCredentialCircuitPair = () => Promise<CredentialCircuitPair>;

async function eventually(check: () => void, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

const throttled = (seconds: number) => ({ status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', retryAfterSeconds: seconds });

export function runCredentialCircuitsContract(name: string, makePair: MakeCredentialCircuitPair): void {
  describe(`${name} credential circuits contract`, () => {
    let pair: CredentialCircuitPair;
    beforeEach(async () => {
      pair = await makePair();
    });
    afterEach(async () => {
      await pair.stop();
    });

    it("a throttle seen by one is skipped by the other for the provider's wait, for that account's key only", async () => {
      pair.a.recordFailure('acct_1', 'openai', 'sk-one', throttled(30));
      await eventually(() => expect(pair.b.skipReason('acct_1', 'openai', 'sk-one')).toBe('credential_throttled'));
      expect(pair.b.skippedForSeconds('acct_1', 'openai', 'sk-one')).toBeGreaterThan(29);
      expect(pair.b.skipReason('acct_2', 'openai', 'sk-two')).toBeUndefined();
      expect(pair.b.skipReason('acct_1', 'openai', 'sk-replaced')).toBeUndefined();
      pair.advance(30_000);
      expect(pair.b.skipReason('acct_1', 'openai', 'sk-one')).toBeUndefined();
    });

    it("a rejection shows on the other (the app's badge), and the key's acceptance on either clears it on both", async () => {
      pair.a.recordFailure('acct_1', 'anthropic', 'sk-ant-one', { status: 401 });
      await eventually(() => expect(pair.b.rejection('acct_1', 'anthropic')).toMatchObject({ status: 401 }));
      expect(pair.b.rejection('acct_2', 'anthropic')).toBeUndefined();
      pair.b.recordSuccess('acct_1', 'anthropic', 'sk-ant-one');
      await eventually(() => expect(pair.a.rejection('acct_1', 'anthropic')).toBeUndefined());
    });

    it('a key the account forgot on one is forgotten on the other', async () => {
      pair.a.recordFailure('acct_1', 'gemini', 'AIza-one', { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', quotaResetsAt: Date.now() + 3_600_000 });
      await eventually(() => expect(pair.b.skipReason('acct_1', 'gemini', 'AIza-one')).toBe('credential_exhausted'));
      pair.a.forget('acct_1', 'gemini');
      await eventually(() => expect(pair.b.skipReason('acct_1', 'gemini', 'AIza-one')).toBeUndefined());
    });
  });
}
