/**
 * The behaviour every store shows for workspaces, budgets and guardrails (version 13), run against
 * SQLite and PostgreSQL on the ledger fixture (the main store and the ledger share the database: budgets
 * are set through the one, held and settled through the other).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetPeriodKey } from '../../src/stores/budget-periods.js';
import type { BudgetHold } from '../../src/stores/budget-store.js';
import type { LedgerStore } from '../../src/stores/ledger-store.js';
import { NotFoundInStoreError, type Store } from '../../src/stores/store.js';
import { WorkspaceConflictError } from '../../src/stores/workspace-store.js';
import { ledgerRecord, type MakeLedger } from './ledger-store-contract.js';

const NOW = '2026-11-15T12:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const EXPIRES = '2026-11-15T12:15:00.000Z';

export function runBudgetStoreContract(name: string, makeLedger: MakeLedger): void {
  describe(`${name} workspaces, budgets and guardrails`, () => {
    let ledger: LedgerStore;
    let store: Store;
    let close: () => Promise<void>;
    let openAnother: () => Promise<LedgerStore>;

    beforeEach(async () => {
      const fixture = await makeLedger();
      ({ ledger, store } = fixture);
      close = () => fixture.close();
      openAnother = () => fixture.openAnother();
    });
    afterEach(async () => close());

    const keyHold = (scopeId: string, limitNanoUsd: number, includeByok = true): BudgetHold => ({
      scope: 'key',
      scopeId,
      periodKey: budgetPeriodKey('month', NOW_MS),
      limitNanoUsd,
      includeByok,
    });
    const reserve = (id: string, holds: BudgetHold[], nanoUsd: number, on = ledger, now = NOW) =>
      on.reserveBudgets({ id, accountId: 'acct_a', holds, nanoUsd, expiresAt: EXPIRES, now });

    it('gives every new organization one default workspace, and keys without a workspace belong to it', async () => {
      const account = await store.createAccount({ email: 'ws@example.com', plan: 'free' }, 'cli');
      const [only, ...none] = await store.listWorkspaces(account.id);
      expect(none).toEqual([]);
      expect(only).toMatchObject({ accountId: account.id, name: 'Default', slug: 'default', isDefault: true });
      expect(await store.getDefaultWorkspace(account.id)).toEqual(only);
      const key = await store.createApiKey({ accountId: account.id, name: 'ci', hash: 'h1', last4: 'abcd' }, 'cli');
      expect(key.workspaceId).toBeNull();
    });

    it('creates, renames, makes default and moves keys, within the organization only, audited', async () => {
      const a = await store.createAccount({ email: 'a@example.com', plan: 'pro' }, 'cli');
      const b = await store.createAccount({ email: 'b@example.com', plan: 'pro' }, 'cli');
      const research = await store.createWorkspace({ accountId: a.id, name: 'Research Team' }, 'person:psn_1');
      expect(research).toMatchObject({ slug: 'research-team', isDefault: false });
      await expect(store.createWorkspace({ accountId: a.id, name: 'research  team!' }, 'cli')).rejects.toBeInstanceOf(WorkspaceConflictError);
      // Another organization may use the same name.
      await expect(store.createWorkspace({ accountId: b.id, name: 'Research Team' }, 'cli')).resolves.toMatchObject({ slug: 'research-team' });
      expect(await store.renameWorkspace(a.id, research.id, 'Lab', 'cli')).toMatchObject({ name: 'Lab', slug: 'lab' });
      await expect(store.renameWorkspace(b.id, research.id, 'Stolen', 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);

      expect(await store.setDefaultWorkspace(a.id, research.id, 'cli')).toMatchObject({ isDefault: true });
      const listed = await store.listWorkspaces(a.id);
      expect(listed.map((workspace) => [workspace.name, workspace.isDefault])).toEqual([['Lab', true], ['Default', false]]);

      const key = await store.createApiKey({ accountId: a.id, name: null, hash: 'h2', last4: 'abcd', workspaceId: listed[1]!.id }, 'cli');
      expect(key.workspaceId).toBe(listed[1]!.id);
      const foreign = (await store.listWorkspaces(b.id))[0]!;
      await expect(store.createApiKey({ accountId: a.id, name: null, hash: 'h3', last4: 'abcd', workspaceId: foreign.id }, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      await store.moveApiKeyToWorkspace(a.id, key.id, research.id, 'cli');
      expect((await store.getApiKey(key.id))?.workspaceId).toBe(research.id);
      await expect(store.moveApiKeyToWorkspace(a.id, key.id, foreign.id, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      await expect(store.moveApiKeyToWorkspace(b.id, key.id, foreign.id, 'cli')).rejects.toBeInstanceOf(NotFoundInStoreError);
      // A rotated key stays in its workspace.
      const { created } = await store.rotateApiKey(key.id, { hash: 'h4', last4: 'efgh', name: null }, 0, 'cli');
      expect(created.workspaceId).toBe(research.id);

      const actions = (await store.listAuditEvents({ accountId: a.id })).map((event) => event.action);
      expect(actions).toEqual(expect.arrayContaining(['workspace.create', 'workspace.rename', 'workspace.set_default', 'key.move_workspace']));
    });

    it('upserts, lists and removes budgets per scope, audited with the actor', async () => {
      const input = { accountId: 'acct_a', scope: 'workspace' as const, scopeId: 'ws_1', limitNanoUsd: 5_000, period: 'week' as const, includeByok: true };
      const first = await store.setBudget(input, 'person:psn_1');
      expect(first).toMatchObject(input);
      const second = await store.setBudget({ ...input, limitNanoUsd: 7_000, period: 'day' }, 'key:key_mgmt');
      expect(second).toMatchObject({ limitNanoUsd: 7_000, period: 'day', createdAt: first.createdAt });
      await store.setBudget({ ...input, scope: 'key', scopeId: 'key_1', period: 'total', includeByok: false }, 'cli');
      expect((await store.listBudgets('acct_a')).map((budget) => [budget.scope, budget.scopeId])).toEqual([
        ['key', 'key_1'],
        ['workspace', 'ws_1'],
      ]);
      expect(await store.listBudgets('acct_b')).toEqual([]);
      expect(await store.removeBudget('acct_a', 'workspace', 'ws_1', 'cli')).toBe(true);
      expect(await store.removeBudget('acct_a', 'workspace', 'ws_1', 'cli')).toBe(false);
      const events = await store.listAuditEvents({ accountId: 'acct_a' });
      expect(events.map((event) => [event.action, event.actor])).toEqual([
        ['budget.remove', 'cli'],
        ['budget.set', 'cli'],
        ['budget.set', 'key:key_mgmt'],
        ['budget.set', 'person:psn_1'],
      ]);
    });

    it('holds estimates against every budget at once, all or none, and names the one that refused', async () => {
      const workspace: BudgetHold = { scope: 'workspace', scopeId: 'ws_1', periodKey: budgetPeriodKey('day', NOW_MS), limitNanoUsd: 1_000, includeByok: true };
      expect(await reserve('r1', [keyHold('key_1', 10_000), workspace], 600)).toEqual({ reserved: true });
      expect(await reserve('r2', [keyHold('key_1', 10_000), workspace], 600)).toEqual({ reserved: true });
      const refused = await reserve('r3', [keyHold('key_1', 10_000), workspace], 600);
      expect(refused).toEqual({ reserved: false, refusedBy: workspace, spentNanoUsd: 0, reservedNanoUsd: 1_200 });
      // Nothing of the refused request was held, on the key's budget either.
      await store.setBudget({ accountId: 'acct_a', scope: 'key', scopeId: 'key_1', limitNanoUsd: 10_000, period: 'month', includeByok: true }, 'cli');
      expect(await store.readBudgetSpend('acct_a', 'key', 'key_1', 'month', NOW)).toBe(1_200);
    });

    it('settles holds to the cost of their records, metering every period, and counts BYOK only where included', async () => {
      await store.setBudget({ accountId: 'acct_a', scope: 'key', scopeId: 'key_1', limitNanoUsd: 10_000, period: 'day', includeByok: false }, 'cli');
      await reserve('r1', [keyHold('key_1', 10_000)], 900);
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_1', workspaceId: 'ws_1', personId: 'psn_1', credentialSource: 'managed', costNanoUsd: 250, meteredNanoUsd: 250, reservationId: 'r1' }),
        ledgerRecord({ keyId: 'key_1', workspaceId: 'ws_1', credentialSource: 'byok', costNanoUsd: 100 }),
      ]);
      // The key's budget leaves BYOK out; the workspace has no budget, so all of it reads as spent.
      expect(await store.readBudgetSpend('acct_a', 'key', 'key_1', 'day', NOW)).toBe(250);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'day', NOW)).toBe(350);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'week', NOW)).toBe(350);
      expect(await store.readBudgetSpend('acct_a', 'member', 'psn_1', 'month', NOW)).toBe(250);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'month', NOW)).toBe(350);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'total', NOW)).toBe(350);
      // The next day starts again; the month and all time do not.
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'day', '2026-11-16T00:00:00.000Z')).toBe(0);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'total', '2027-03-01T00:00:00.000Z')).toBe(350);
      // A record written twice settles once.
      const again = ledgerRecord({ keyId: 'key_1', workspaceId: 'ws_1', costNanoUsd: 5 });
      await ledger.writeBatch([again]);
      await ledger.writeBatch([again]);
      expect(await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'day', NOW)).toBe(355);
    });

    it('reads several budgets’ spend in one call, each as readBudgetSpend would, in the order asked', async () => {
      await store.setBudget({ accountId: 'acct_a', scope: 'key', scopeId: 'key_1', limitNanoUsd: 10_000, period: 'day', includeByok: false }, 'cli');
      await reserve('r1', [keyHold('key_1', 10_000)], 900);
      await reserve('r2', [keyHold('key_3', 10_000)], 40);
      await ledger.writeBatch([
        ledgerRecord({ keyId: 'key_1', workspaceId: 'ws_1', credentialSource: 'managed', costNanoUsd: 250, meteredNanoUsd: 250, reservationId: 'r1' }),
        ledgerRecord({ keyId: 'key_1', workspaceId: 'ws_1', credentialSource: 'byok', costNanoUsd: 100 }),
      ]);
      const asked = [
        { scope: 'workspace', scopeId: 'ws_1', period: 'week' },
        { scope: 'key', scopeId: 'key_1', period: 'day' },
        { scope: 'key', scopeId: 'key_3', period: 'month' },
        { scope: 'key', scopeId: 'key_none', period: 'total' },
      ] as const;
      const one = await Promise.all(asked.map((budget) => store.readBudgetSpend('acct_a', budget.scope, budget.scopeId, budget.period, NOW)));
      expect(one).toEqual([350, 250, 40, 0]);
      expect(await store.readBudgetsSpend('acct_a', asked, NOW)).toEqual(one);
      expect(await store.readBudgetsSpend('acct_b', asked, NOW)).toEqual([0, 0, 0, 0]);
      expect(await store.readBudgetsSpend('acct_a', [], NOW)).toEqual([]);
    });

    it('refuses at the limit against settled spend, and stops counting expired holds', async () => {
      await ledger.writeBatch([ledgerRecord({ keyId: 'key_2', costNanoUsd: 1_000 })]);
      expect(await reserve('r1', [keyHold('key_2', 1_000)], 1)).toMatchObject({ reserved: false, spentNanoUsd: 1_000 });
      expect(await reserve('r2', [keyHold('key_2', 1_001)], 500)).toEqual({ reserved: true });
      expect(await reserve('r3', [keyHold('key_2', 1_001)], 500)).toMatchObject({ reserved: false, reservedNanoUsd: 500 });
      expect(await reserve('r4', [keyHold('key_2', 1_001)], 500, ledger, EXPIRES)).toEqual({ reserved: true });
      expect((await ledger.prune({ recordsBefore: '2026-01-01T00:00:00.000Z', now: '2026-11-15T13:00:00.000Z', limit: 10 })).reservations).toBe(2);
    });

    it('lets concurrent holds from two connections overshoot a budget by less than one estimate', async () => {
      const other = await openAnother();
      try {
        const estimate = 70;
        const limit = 1_000;
        const workspace: BudgetHold = { scope: 'workspace', scopeId: 'ws_1', periodKey: budgetPeriodKey('week', NOW_MS), limitNanoUsd: limit, includeByok: true };
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => reserve(`r${i}`, [keyHold(`key_${i % 3}`, 1_000_000), workspace], estimate, i % 2 === 0 ? ledger : other)),
        );
        const admitted = results.filter((result) => result.reserved).length;
        expect(admitted).toBe(Math.ceil(limit / estimate));
        await store.setBudget({ accountId: 'acct_a', scope: 'workspace', scopeId: 'ws_1', limitNanoUsd: limit, period: 'week', includeByok: true }, 'cli');
        const held = await store.readBudgetSpend('acct_a', 'workspace', 'ws_1', 'week', NOW);
        expect(held).toBe(admitted * estimate);
        expect(held).toBeLessThan(limit + estimate);
      } finally {
        await other.close();
      }
    });

    it('keeps guardrails per scope, lists null as "no allow list", and removes them', async () => {
      const rules = { allowedModels: ['openai/*', 'router/frontier'], deniedModels: ['openai/gpt-5'], allowedProviders: null, deniedProviders: ['gemini'], requireZdr: true };
      const saved = await store.setGuardrail({ accountId: 'acct_a', scope: 'workspace', scopeId: 'ws_1', ...rules }, 'person:psn_1');
      expect(saved).toMatchObject(rules);
      await store.setGuardrail({ accountId: 'acct_a', scope: 'workspace', scopeId: 'ws_1', ...rules, requireZdr: false, allowedModels: null }, 'cli');
      expect(await store.listGuardrails('acct_a')).toEqual([expect.objectContaining({ allowedModels: null, requireZdr: false, deniedProviders: ['gemini'] })]);
      expect(await store.listGuardrails('acct_b')).toEqual([]);
      expect(await store.removeGuardrail('acct_a', 'workspace', 'ws_1', 'cli')).toBe(true);
      expect(await store.listGuardrails('acct_a')).toEqual([]);
    });
  });
}
