import { join } from 'node:path';
import type { ConfigProblem } from './config-error.js';
import { readConfig } from './read-config.js';

export interface ConfigCheck {
  ok: boolean;
  /** Every problem, in file order; print each with formatConfigProblem. */
  problems: ConfigProblem[];
  /** Worth fixing but not fatal (e.g. a routed model without a price); `ok` ignores them. */
  warnings: ConfigProblem[];
  /** One line for the operator, e.g. `config/ is valid: 3 plans, 2 route profiles, …`. */
  summary: string;
}

/** `router check`: everything loadConfig does, reported instead of thrown. */
export function checkConfig(dir: string, env: NodeJS.ProcessEnv): ConfigCheck {
  const { config, problems, warnings } = readConfig(dir, env);
  // join() normalises `./config` and `config/` alike to `config`, the way problems name files.
  const shownDir = `${join(dir)}/`.replace(/\/+$/, '/');
  if (!config) {
    return { ok: false, problems, warnings, summary: `${shownDir} has ${count(problems.length, 'problem')}` };
  }
  const counts = [
    count(config.plans.length, 'plan'),
    count(config.routes.length - config.catalog.concreteModels.length, 'route profile'),
    ...(config.catalog.concreteModels.length > 0 ? [count(config.catalog.concreteModels.length, 'concrete model')] : []),
    count(config.providers.providers.length, 'provider'),
    count(config.catalog.families.length, 'catalog family', 'catalog families'),
  ];
  const summary = `${shownDir} is valid: ${counts.join(', ')}${warnings.length > 0 ? ` (${count(warnings.length, 'warning')})` : ''}`;
  return { ok: true, problems: [], warnings, summary };
}

function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
