/**
 * Model names matched against the `*` globs of the configuration: plans' `models` allow and deny lists
 * (which concrete catalog models a plan may call) and routes.yaml's model aliases. Pure and shared, so the
 * pipeline, the usage views and the account app's pages all read a plan the same way.
 */
import type { PlanConfig } from './types.js';

/** Patterns come from the configuration only, so one compiled matcher each is kept for the process. */
const compiled = new Map<string, (name: string) => boolean>();

/** An exact name, or a pattern whose `*` matches any run of characters (nothing else is special). */
export function globMatcher(pattern: string): (name: string) => boolean {
  let matcher = compiled.get(pattern);
  if (!matcher) {
    if (!pattern.includes('*')) {
      matcher = (name) => name === pattern;
    } else {
      const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`);
      matcher = (name) => regex.test(name);
    }
    compiled.set(pattern, matcher);
  }
  return matcher;
}

/** Whether a plan may call a concrete catalog model (plans.yaml `models`: ids or `*` globs; deny wins). */
export function planAllowsModel(plan: Pick<PlanConfig, 'models'> | undefined, modelId: string): boolean {
  const models = plan?.models;
  if (!models) return false;
  return models.allow.some((pattern) => globMatcher(pattern)(modelId)) && !models.deny.some((pattern) => globMatcher(pattern)(modelId));
}
