import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FusionConfig, ProviderConfig, RouteProfileConfig } from '../../../src/config/types.js';
import { fusionAccessProblem } from '../../../src/routing/fusion/fusion-access.js';

const PROVIDERS = ['p0', 'p1', 'p2', 'p3', 'p4'] as const;
const providers = new Map(PROVIDERS.map((id) => [id, { id } as ProviderConfig]));

const tiers = fc.array(fc.array(fc.constantFrom(...PROVIDERS), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }).map((rows) =>
  rows.map((row) => row.map((provider) => ({ provider, model: `${provider}-m`, weight: 1 }))),
);

const fusionRoute = fc
  .record({
    panel: fc.array(tiers, { minLength: 1, maxLength: 4 }),
    writer: fc.option(tiers, { nil: undefined }),
    judge: tiers,
    routeTiers: tiers,
    mode: fc.constantFrom('analyze-then-write' as const, 'judge-writes' as const),
    minAnswersOffset: fc.nat(3),
  })
  .map(({ panel, writer, judge, routeTiers, mode, minAnswersOffset }) => {
    const fusion = {
      mode,
      minAnswers: Math.min(panel.length, 1 + minAnswersOffset),
      panelTimeoutMs: 1000,
      maxPanelOutputTokens: 10,
      keepAliveMs: 1000,
      maxToolRounds: 1,
      panel: panel.map((stage) => ({ tiers: stage })),
      judge: { tiers: judge },
      ...(writer ? { writer: { tiers: writer } } : {}),
    } as FusionConfig;
    return { id: 'router/fusion', family: 'fusion', description: '', quotaWeight: 1, retryBudget: 1, tiers: routeTiers, fusion } as RouteProfileConfig & { fusion: FusionConfig };
  });

const reaches = (stage: { tiers: ReadonlyArray<ReadonlyArray<{ provider: string }>> }, keys: ReadonlySet<string>) => stage.tiers.flat().some((target) => keys.has(target.provider));

describe('fusionAccessProblem', () => {
  it('refuses exactly when too few panel members or no writer can run with the keys, and names only providers the account lacks', async () => {
    await fc.assert(
      fc.asyncProperty(fusionRoute, fc.subarray([...PROVIDERS]), async (route, held) => {
        const keys = new Set<string>(held);
        const deps = { providers, credentialsOf: async () => (id: string) => (keys.has(id) ? { value: 'k', source: 'byok' as const } : undefined) };
        const problem = await fusionAccessProblem(deps, 'acct_1', route);
        const { fusion } = route;
        const writer = fusion.mode === 'judge-writes' ? fusion.judge : (fusion.writer ?? { tiers: route.tiers });
        const runnable = fusion.panel.filter((stage) => reaches(stage, keys)).length >= fusion.minAnswers && reaches(writer, keys);
        expect(problem === undefined).toBe(runnable);
        if (problem) {
          expect(problem.code).toBe('no_provider_access');
          const missing = problem.details.missingProviders as string[];
          expect(missing.length).toBeGreaterThan(0);
          for (const provider of missing) expect(keys.has(provider)).toBe(false);
        }
      }),
    );
  });
});
