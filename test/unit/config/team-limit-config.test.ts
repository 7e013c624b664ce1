/**
 * Plan-level team limits in `router check` (docs/teams.md): maxMembers and maxWorkspaces must be whole
 * numbers of at least 1 (one person and the default workspace always exist), and a plan priced above
 * another that allows fewer (an upgrade that takes away) is a warning.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from './config-variant.js';

afterAll(removeConfigVariants);

/** Sets team limits on free (price 0), pro (20) and max (200) in the fixture's plans.yaml. */
function withLimits(limits: { free?: string; pro?: string; max?: string }) {
  const edits = [
    ['    priceUsdMonthly: 0\n', limits.free],
    ['    priceUsdMonthly: 20\n', limits.pro],
    ['    priceUsdMonthly: 200\n', limits.max],
  ] as const;
  return {
    'plans.yaml': (text: string) =>
      edits.reduce((doc, [anchor, extra]) => (extra === undefined ? doc : replaceOnce(anchor, `${anchor}${extra}`)(doc)), text),
  };
}

const warningsOf = (dir: string) => checkConfig(dir, {}).warnings.map((warning) => warning.message);

describe('team limits in router check', () => {
  it('accepts limits that grow with the price, without a warning', () => {
    const dir = writeConfigVariant(withLimits({ free: '    maxMembers: 1\n    maxWorkspaces: 1\n', pro: '    maxMembers: 10\n    maxWorkspaces: 5\n' }));
    const result = checkConfig(dir, {});
    expect(result.ok, listProblems(dir).join('\n')).toBe(true);
    expect(warningsOf(dir).filter((message) => /members|workspaces/.test(message))).toEqual([]);
  });

  it('refuses a limit below one or not a whole number, naming the plan and the field', () => {
    for (const bad of ['    maxMembers: 0\n', '    maxWorkspaces: 1.5\n', '    maxMembers: "many"\n']) {
      const problems = listProblems(writeConfigVariant(withLimits({ pro: bad }))).join('\n');
      expect(problems, bad).toMatch(/plans\[1\]\.max(Members|Workspaces)/);
    }
  });

  it('warns when a dearer plan allows fewer members or workspaces than a cheaper one, or limits what it leaves open', () => {
    const fewer = writeConfigVariant(withLimits({ free: '    maxMembers: 3\n', pro: '    maxMembers: 2\n' }));
    expect(checkConfig(fewer, {}).ok).toBe(true);
    expect(warningsOf(fewer)).toContainEqual('plan "pro" allows 2 members but the cheaper plan "free" allows 3: upgrading would lower the limit');
    const limitedOnlyAbove = writeConfigVariant(withLimits({ max: '    maxWorkspaces: 4\n' }));
    expect(warningsOf(limitedOnlyAbove)).toContainEqual('plan "max" allows 4 workspaces but the cheaper plan "free" has no limit: upgrading would lower the limit');
  });
});
