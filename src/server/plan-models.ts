/** Whether a plan may call a concrete catalog model (plans.yaml `models`: ids or `*` globs; deny wins). */
import { globMatcher } from './stages/resolve-model-alias.js';
import type { PlanConfig } from '../config/types.js';

export function planAllowsModel(plan: Pick<PlanConfig, 'models'> | undefined, modelId: string): boolean {
  const models = plan?.models;
  if (!models) return false;
  const matches = (pattern: string) => globMatcher(pattern)(modelId);
  return models.allow.some(matches) && !models.deny.some(matches);
}
