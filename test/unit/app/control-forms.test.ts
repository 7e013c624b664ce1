/**
 * The budget and guardrail forms (control-forms.ts) and who sees which target (control-targets.ts):
 * property tests over arbitrary input (never a throw, every accepted value bounded and meaningful) and
 * the visibility rules per role.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowsEverything, parseBudgetForm, parseGuardrailForm } from '../../../src/app/control-forms.js';
import { PLAYGROUND_KEY_NAME } from '../../../src/accounts/key-service.js';
import { allTargets, findTarget, visibleTargets } from '../../../src/app/control-targets.js';
import { GUARDRAIL_ENTRY_MAX, GUARDRAIL_LIST_MAX } from '../../../src/stores/guardrail-store.js';
import type { MemberView } from '../../../src/stores/people-store.js';
import type { ApiKeyRecord } from '../../../src/stores/store.js';
import type { WorkspaceRecord } from '../../../src/stores/workspace-store.js';

const SERVED = ['router/frontier', 'router/fusion', 'openai/gpt-4.1', 'anthropic/claude-sonnet-4-5'];
const PROVIDERS = ['openai', 'anthropic', 'gemini'];
const globMatches = (pattern: string, name: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`).test(name);

describe('parseBudgetForm', () => {
  it('takes amounts as the CLI does, in exact nano-USD, and total budgets for keys only', () => {
    expect(parseBudgetForm({ usd: '25', period: 'month', includeByok: 'on' }, 'workspace')).toEqual({ ok: true, value: { limitNanoUsd: 25_000_000_000, period: 'month', includeByok: true } });
    expect(parseBudgetForm({ usd: '$0.50', period: 'day' }, 'member')).toEqual({ ok: true, value: { limitNanoUsd: 500_000_000, period: 'day', includeByok: false } });
    expect(parseBudgetForm({ usd: '5', period: 'total' }, 'key')).toMatchObject({ ok: true });
    expect(parseBudgetForm({ usd: '5', period: 'total' }, 'workspace')).toMatchObject({ ok: false, errors: { period: expect.stringContaining('for keys only') } });
    expect(parseBudgetForm({ usd: '-1', period: 'hour' }, 'key')).toMatchObject({ ok: false, errors: { usd: expect.any(String), period: expect.any(String) } });
  });

  it('refuses more than a million USD: beyond it nano-USD would not stay exact', () => {
    expect(parseBudgetForm({ usd: '999999999', period: 'day' }, 'key')).toMatchObject({ ok: false, errors: { usd: expect.stringContaining('at most USD 1,000,000') } });
  });

  it('never throws, and whatever it accepts is a whole, non-negative, exact nano-USD amount', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), fc.stringMatching(/^\d{1,9}(\.\d{1,9})?$/)), fc.constantFrom('day', 'week', 'month', 'total', '', 'year'), fc.constantFrom('workspace', 'member', 'key') as fc.Arbitrary<'workspace' | 'member' | 'key'>, (usd, period, scope) => {
        const parsed = parseBudgetForm({ usd, period }, scope);
        if (parsed.ok) {
          expect(Number.isSafeInteger(parsed.value.limitNanoUsd)).toBe(true);
          expect(parsed.value.limitNanoUsd).toBeLessThanOrEqual(1_000_000 * 1e9);
          expect(parsed.value.limitNanoUsd).toBeGreaterThanOrEqual(0);
        } else expect(Object.keys(parsed.errors).length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('parseGuardrailForm', () => {
  it('reads the form into rules: lists split on lines and commas, providers from their ticks', () => {
    const parsed = parseGuardrailForm({ allowedModels: 'router/frontier\n openai/*, router/frontier', deniedModels: '', providers: 'only', 'allow.openai': 'on', 'allow.nowhere': 'on', 'deny.gemini': 'on', requireZdr: 'on' }, SERVED, PROVIDERS);
    expect(parsed).toEqual({ ok: true, value: { allowedModels: ['router/frontier', 'openai/*'], deniedModels: [], allowedProviders: ['openai'], deniedProviders: ['gemini'], requireZdr: true } });
  });

  it('refuses a rule that matches nothing served, a guardrail that allows everything, and "only" with no provider ticked', () => {
    expect(parseGuardrailForm({ allowedModels: 'router/frontierr' }, SERVED, PROVIDERS)).toMatchObject({ ok: false, errors: { allowedModels: expect.stringContaining('matches no model') } });
    expect(parseGuardrailForm({ providers: 'any' }, SERVED, PROVIDERS)).toMatchObject({ ok: false, errors: { allowedModels: expect.stringContaining('allow everything') } });
    expect(parseGuardrailForm({ providers: 'only' }, SERVED, PROVIDERS)).toMatchObject({ ok: false, errors: { providers: expect.any(String) } });
  });

  it('never throws; what it accepts is bounded, matches something served, and names only configured providers', () => {
    const entry = fc.oneof(fc.constantFrom(...SERVED, 'openai/*', '*', 'anthropic/*', 'router/*'), fc.string({ maxLength: 140 }));
    const list = fc.tuple(fc.array(entry, { maxLength: 70 }), fc.constantFrom('\n', ',', ' , ')).map(([entries, separator]) => entries.join(separator));
    const ticks = fc.dictionary(fc.constantFrom(...PROVIDERS.flatMap((id) => [`allow.${id}`, `deny.${id}`]), 'allow.x', 'requireZdr'), fc.constantFrom('on', 'off', ''));
    fc.assert(
      fc.property(list, list, fc.constantFrom('any', 'only', '', 'all'), ticks, (allowedModels, deniedModels, providers, extra) => {
        const parsed = parseGuardrailForm({ allowedModels, deniedModels, providers, ...extra }, SERVED, PROVIDERS);
        if (!parsed.ok) return;
        const rules = parsed.value;
        expect(allowsEverything(rules)).toBe(false);
        for (const models of [rules.allowedModels ?? [], rules.deniedModels]) {
          expect(models.length).toBeLessThanOrEqual(GUARDRAIL_LIST_MAX);
          for (const model of models) {
            expect(model.length).toBeLessThanOrEqual(GUARDRAIL_ENTRY_MAX);
            expect(SERVED.some((name) => globMatches(model, name)), model).toBe(true);
          }
        }
        for (const provider of [...(rules.allowedProviders ?? []), ...rules.deniedProviders]) expect(PROVIDERS).toContain(provider);
      }),
      { numRuns: 300 },
    );
  });
});

describe('visibleTargets', () => {
  const at = '2026-11-21T10:00:00.000Z';
  const workspaces: WorkspaceRecord[] = [{ id: 'ws_1', accountId: 'acct_1', name: 'Default', slug: 'default', isDefault: true, createdAt: at }];
  const members: MemberView[] = ['ada', 'bob', 'cy'].map((name) => ({ accountId: 'acct_1', personId: `psn_${name}`, role: 'member', createdAt: at, email: `${name}@example.com` }));
  const key = (id: string, personId: string | null, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    id, accountId: 'acct_1', name: id, prefix: 'sk_router_', last4: id.slice(-4), hash: id, createdAt: at, revokedAt: null, expiresAt: null, workspaceId: null, personId, kind: 'inference', disabledAt: null, updatedAt: null, ...extra,
  });
  const keys = [key('key_ada1', 'psn_ada'), key('key_bob1', 'psn_bob'), key('key_gone', 'psn_ada', { revokedAt: at }), key('key_play', 'psn_ada', { name: PLAYGROUND_KEY_NAME })];
  const lists = { workspaces, members, keys, nowMs: Date.parse(at) };
  const ids = (role: 'owner' | 'admin' | 'member' | 'viewer', personId: string) => allTargets(visibleTargets({ role, personId }, lists)).map((target) => target.value);

  it('admins see every member and live key; a member their own keys; a viewer only themself', () => {
    expect(ids('admin', 'psn_cy')).toEqual(['workspace:ws_1', 'member:psn_ada', 'member:psn_bob', 'member:psn_cy', 'key:key_ada1', 'key:key_bob1']);
    expect(ids('member', 'psn_ada')).toEqual(['workspace:ws_1', 'member:psn_ada', 'member:psn_bob', 'member:psn_cy', 'key:key_ada1']);
    expect(ids('viewer', 'psn_bob')).toEqual(['workspace:ws_1', 'member:psn_bob', 'key:key_bob1']);
  });

  it('finds only a target it lists', () => {
    const groups = visibleTargets({ role: 'member', personId: 'psn_ada' }, lists);
    expect(findTarget(groups, 'key:key_ada1')?.label).toBe('key_ada1 (sk_router_…ada1)');
    expect(findTarget(groups, 'key:key_bob1')).toBeUndefined();
    expect(findTarget(groups, undefined)).toBeUndefined();
  });
});
