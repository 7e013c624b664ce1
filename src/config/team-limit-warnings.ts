import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';

const LIMITS = [
  { field: 'maxMembers', words: 'members' },
  { field: 'maxWorkspaces', words: 'workspaces' },
] as const;

/**
 * Plan-level team limits (docs/teams.md): a plan priced above another that allows fewer members or
 * workspaces (or sets a limit where the cheaper one has none) makes an upgrade take something away;
 * an organization that upgrades is then over its new plan's limit and cannot invite or create. Legal,
 * but almost always a typo in plans.yaml, so `router check` says so.
 */
export function teamLimitWarnings(files: Partial<RawConfigFiles>): FileProblem[] {
  const plans = files.plans?.plans ?? [];
  const warnings: FileProblem[] = [];
  plans.forEach((plan, p) => {
    for (const { field, words } of LIMITS) {
      const limit = plan[field];
      if (limit === undefined) continue;
      const cheaper = plans.find((other) => other.priceUsdMonthly < plan.priceUsdMonthly && (other[field] === undefined || other[field] > limit));
      if (!cheaper) continue;
      const theirs = cheaper[field] === undefined ? 'has no limit' : `allows ${cheaper[field]}`;
      warnings.push({
        file: 'plans',
        pointer: `/plans/${p}/${field}`,
        target: 'value',
        message: `plan "${plan.id}" allows ${limit} ${words} but the cheaper plan "${cheaper.id}" ${theirs}: upgrading would lower the limit`,
      });
    }
  });
  return warnings;
}
