/** The `fusion` block of routes.yaml: schema defaults, cross-checks, and `router check`'s warning for a one-provider panel. */
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

const FUSION_TIERS = `    tiers:
      - - { provider: anthropic, model: claude-opus-4-1 }
        - { provider: openai, model: gpt-5 }
      - - { provider: gemini, model: gemini-2.5-pro }
`;

function withFusion(block: string) {
  return { 'routes.yaml': replaceOnce(FUSION_TIERS, `${FUSION_TIERS}${block}`) };
}

const PANEL_OF_THREE = `    fusion:
      panel:
        - tiers: [[{ provider: openai, model: gpt-4.1 }]]
        - tiers: [[{ provider: anthropic, model: claude-sonnet-4-5 }]]
        - tiers: [[{ provider: gemini, model: gemini-2.5-pro }]]
      judge:
        tiers: [[{ provider: openai, model: gpt-4.1 }]]
`;

describe('the fusion block of a route profile', () => {
  it('fills its defaults and keeps the route tiers as the writer', () => {
    const config = loadConfig(writeConfigVariant(withFusion(PANEL_OF_THREE)), {});
    const fusion = config.routes.find((route) => route.id === 'router/fusion')?.fusion;
    expect(fusion).toMatchObject({ mode: 'analyze-then-write', minAnswers: 1, panelTimeoutMs: 60_000, maxPanelOutputTokens: 2048, keepAliveMs: 10_000, maxToolRounds: 2 });
    expect(fusion?.writer).toBeUndefined();
    expect(fusion?.panel).toHaveLength(3);
  });

  it('refuses a panel of one and an unknown mode, pointing at the line', () => {
    const one = withFusion(`    fusion:
      mode: vote
      panel:
        - tiers: [[{ provider: openai, model: gpt-4.1 }]]
      judge:
        tiers: [[{ provider: openai, model: gpt-4.1 }]]
`);
    const problems = listProblems(writeConfigVariant(one)).join('\n');
    expect(problems).toContain('routes[1].fusion.mode');
    expect(problems).toContain('routes[1].fusion.panel');
  });

  it('refuses an unknown provider in a panel member, the judge or the writer', () => {
    const block = PANEL_OF_THREE.replace('provider: anthropic, model: claude-sonnet', 'provider: antrhopic, model: claude-sonnet') + '      writer:\n        tiers: [[{ provider: gemnii, model: gemini-2.5-pro }]]\n';
    const problems = listProblems(writeConfigVariant(withFusion(block)));
    expect(problems.filter((problem) => problem.includes('unknown provider'))).toEqual([
      expect.stringContaining('route profile "router/fusion" names unknown provider "antrhopic"'),
      expect.stringContaining('route profile "router/fusion" names unknown provider "gemnii"'),
    ]);
  });

  it('refuses more required answers than panel members', () => {
    const problems = listProblems(writeConfigVariant(withFusion(PANEL_OF_THREE.replace('    fusion:\n', '    fusion:\n      minAnswers: 4\n'))));
    expect(problems).toEqual([expect.stringContaining('route profile "router/fusion" needs 4 fusion answers (minAnswers) from a panel of 3')]);
  });

  it('warns when every panel member calls the same provider, and not otherwise', () => {
    const shared = PANEL_OF_THREE.replace('provider: anthropic, model: claude-sonnet-4-5', 'provider: openai, model: gpt-5').replace('provider: gemini, model: gemini-2.5-pro }]]\n      judge', 'provider: openai, model: gpt-4.1 }]]\n      judge');
    const warned = checkConfig(writeConfigVariant(withFusion(shared)), {});
    expect(warned.ok).toBe(true);
    expect(warned.warnings.map((warning) => warning.message)).toContainEqual(expect.stringContaining('every fusion panel member calls provider "openai"'));
    const mixed = checkConfig(writeConfigVariant(withFusion(PANEL_OF_THREE)), {});
    expect(mixed.warnings.map((warning) => warning.message).filter((message) => message.includes('fusion panel'))).toEqual([]);
  });

  it('accepts the shipped quality preset over the three providers', () => {
    const fusion = loadConfig('config', {}).routes.find((route) => route.id === 'router/fusion')?.fusion;
    expect(new Set(fusion?.panel.map((member) => member.tiers[0]?.[0]?.provider))).toEqual(new Set(['anthropic', 'openai', 'gemini']));
  });
});
