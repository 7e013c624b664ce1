/**
 * Model names matched against the `*` globs of the configuration: plans' `models` allow and deny lists
 * (which concrete catalog models a plan may call) and routes.yaml's model aliases. Pure and shared, so the
 * pipeline, the usage views and the account app's pages all read a plan the same way.
 */
import type { PlanConfig } from './types.js';

/** An exact name, or a pattern whose `*` matches any run of characters (nothing else is special). */
export function globMatcher(pattern: string): (name: string) => boolean {
  return pattern.includes('*') ? (name) => globMatches(pattern, name) : (name) => name === pattern;
}

/**
 * Whether `name` matches `pattern` (`*`: any run of characters). Patterns also come from people
 * (guardrails: 64 entries of up to 128 characters), so this never backtracks further than the last
 * `*`: at most pattern × name steps. The regular expression it replaces (`^a.*a.*…b$`) needed
 * exponential time: `a*` eight times then `b`, against 64 `a`s, held the event loop for 29 s.
 */
export function globMatches(pattern: string, name: string): boolean {
  let at = 0;
  let inName = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (inName < name.length) {
    if (at < pattern.length && pattern[at] === '*') {
      lastStar = at++;
      resumeAt = inName;
    } else if (at < pattern.length && pattern[at] === name[inName]) {
      at++;
      inName++;
    } else if (lastStar !== -1) {
      // The last star takes one more character; everything after it is matched again from there.
      at = lastStar + 1;
      inName = ++resumeAt;
    } else {
      return false;
    }
  }
  while (at < pattern.length && pattern[at] === '*') at++;
  return at === pattern.length;
}

/** Whether a plan may call a concrete catalog model (plans.yaml `models`: ids or `*` globs; deny wins). */
export function planAllowsModel(plan: Pick<PlanConfig, 'models'> | undefined, modelId: string): boolean {
  const models = plan?.models;
  if (!models) return false;
  return models.allow.some((pattern) => globMatcher(pattern)(modelId)) && !models.deny.some((pattern) => globMatcher(pattern)(modelId));
}
