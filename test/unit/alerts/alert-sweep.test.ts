/**
 * The sweep against a real SQLite store (its unique insert is what makes "once"): a threshold is recorded
 * and mailed once per period however often the sweep runs and however use grows, the next month warns
 * again, and an account is kept until its last request can be in the ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSweep } from '../../../src/alerts/alert-sweep.js';
import { thresholdReached } from '../../../src/alerts/alert-rules.js';
import type { RouterConfig } from '../../../src/config/types.js';
import { createMailer, type MailMessage } from '../../../src/mail/mailer.js';
import { CredentialHealth } from '../../../src/routing/credential-health.js';
import type { QuotaLedger } from '../../../src/stores/quota-ledger.js';
import { createSqliteStore } from '../../../src/stores/sqlite/create-sqlite-store.js';
import type { Store } from '../../../src/stores/store.js';
import { ManualClock } from '../../contracts/store-contract.js';
import { silentLogger } from '../../e2e/router-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'router-alert-sweep-'));
const clock = new ManualClock(Date.UTC(2026, 10, 3, 12));
let store: Store;
beforeAll(async () => {
  store = createSqliteStore({ path: join(dir, 'alerts.db'), clock });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = {
  server: { appUrl: 'http://127.0.0.1:8787/app', app: { alerts: { sweepSeconds: 30, spikeMinRequests: 200, spikeFactor: 10 } }, ledger: { flushIntervalMs: 1000 } },
  plans: [{ id: 'free' }],
} as unknown as RouterConfig;

/** A sweep whose quota standing is whatever the test says the account has used. */
function sweepWith(used: Map<string, number>, limit: number) {
  const sent: MailMessage[] = [];
  const mail = createMailer({ transport: 'log', from: 'router@example.com' }, silentLogger(), async (message) => void sent.push(message));
  const quota = { peek: async (accountId: string) => ({ plan: 'free', status: 'active', used: used.get(accountId) ?? 0, limit }) } as unknown as QuotaLedger;
  const sweep = new AlertSweep({
    config,
    store,
    ledger: null,
    quota,
    quotaLimits: { free: limit },
    credentialHealth: new CredentialHealth({ failureThreshold: 3, cooldownMs: 30_000 }, clock),
    managedAccessActive: false,
    mail,
    clock,
    logger: silentLogger(),
  });
  return { sweep, sent, mail };
}

const request = (sweep: AlertSweep, accountId: string) => sweep.observer.onRequestFinished({ accountId });

describe('the alert sweep', () => {
  it('records and mails each threshold once per period, whatever the sweeps and the growth (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 25 }), async (limit, steps) => {
        const account = await store.createAccount({ email: `sweep-${run++}@example.com`, plan: 'free' }, 'test');
        const used = new Map<string, number>();
        const { sweep, sent, mail } = sweepWith(used, limit);
        const levelsSeen = new Set<number>();
        let total = 0;
        for (const step of steps) {
          total += step;
          used.set(account.id, total);
          request(sweep, account.id);
          clock.advance(5000);
          await sweep.sweep();
          const level = thresholdReached(total, limit);
          if (level) levelsSeen.add(level);
        }
        await mail.close();
        const mailed = sent.map((message) => message.subject);
        // Exactly one mail per level the sweeps saw; none twice.
        expect(mailed).toHaveLength(levelsSeen.size);
        expect(new Set(mailed).size).toBe(mailed.length);
        const recorded = (await store.listAlerts(account.id, 100)).filter((alert) => alert.kind === 'quota');
        expect(recorded.map((alert) => alert.level).sort()).toEqual([...levelsSeen].sort());
      }),
      { numRuns: 40 },
    );
  });

  it('warns again in the next month', async () => {
    const account = await store.createAccount({ email: 'next-month@example.com', plan: 'free' }, 'test');
    const used = new Map([[account.id, 9]]);
    const { sweep, sent, mail } = sweepWith(used, 10);
    request(sweep, account.id);
    clock.advance(5000);
    await sweep.sweep();
    clock.advance(31 * 86_400_000);
    request(sweep, account.id);
    clock.advance(5000);
    await sweep.sweep();
    await mail.close();
    expect(sent.map((message) => message.subject)).toEqual(['You have used 80 % of your monthly requests', 'You have used 80 % of your monthly requests']);
    expect(new Set((await store.listAlerts(account.id, 10)).map((alert) => alert.period)).size).toBe(2);
  });

  it("keeps an account whose last request may not be in the ledger yet for one more sweep", async () => {
    const account = await store.createAccount({ email: 'late-ledger@example.com', plan: 'free' }, 'test');
    const used = new Map([[account.id, 0]]);
    const { sweep, sent, mail } = sweepWith(used, 10);
    request(sweep, account.id);
    // The sweep runs right after the request (within ledger.flushIntervalMs): nothing to warn about yet.
    await sweep.sweep();
    used.set(account.id, 10);
    clock.advance(2000);
    await sweep.sweep();
    await mail.close();
    expect(sent.map((message) => message.subject)).toEqual(['Your monthly requests are used up']);
  });

  it('never mails a kind the account turned off, and still records it', async () => {
    const account = await store.createAccount({ email: 'no-quota-mail@example.com', plan: 'free' }, 'test');
    await store.setAlertEmailKinds(account.id, ['key_cap'], new Date(clock.now()).toISOString());
    const { sweep, sent, mail } = sweepWith(new Map([[account.id, 10]]), 10);
    request(sweep, account.id);
    clock.advance(5000);
    await sweep.sweep();
    await mail.close();
    expect(sent).toHaveLength(0);
    expect((await store.listAlerts(account.id, 10)).map((alert) => alert.level)).toEqual([100]);
  });
});
