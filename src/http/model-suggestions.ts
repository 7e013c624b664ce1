/**
 * Which of the names a caller may use resemble a model name it asked for and the router does not know
 * (`gpt5` → `openai/gpt-5`, `claude-sonnet` → the Sonnet ids), for the `unknown_model` error. Newcomers
 * type the provider's own names; a list of every profile does not show them which concrete model they
 * meant. The caller passes only names its plan allows (and its organization's presets), so nothing is
 * ever suggested that would then be refused with `plan_upgrade_required`.
 *
 * Bounded work whatever is asked: names are compared normalized (lower case, letters and digits only,
 * at most MAX_COMPARED characters), and an edit distance is computed only between such short strings, so
 * one refusal costs at most candidates × 64 × 64 steps.
 */
import { RouterError } from '../core/errors.js';

export const MAX_SUGGESTIONS = 3;
/** Longer names are cut to this before comparing: no model id is longer, and the distance stays cheap. */
const MAX_COMPARED = 64;
/** A substring shorter than this matches too much (`o` is in most ids). */
const MIN_SUBSTRING = 3;

function normalized(name: string): string {
  return name.slice(0, MAX_COMPARED * 2).toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, MAX_COMPARED);
}

/** The forms a candidate is known by: its whole id and the part after the last slash (`gpt5` for `openai/gpt-5`). */
function formsOf(id: string): string[] {
  const tail = id.slice(id.lastIndexOf('/') + 1);
  return [...new Set([normalized(id), normalized(tail)])].filter((form) => form.length > 0);
}

/** Levenshtein distance, giving up (Infinity) once it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return Infinity;
    previous = current;
  }
  return previous[b.length]! <= limit ? previous[b.length]! : Infinity;
}

/** Lower is closer; undefined when the candidate does not resemble the name at all. */
function closeness(asked: string, forms: readonly string[]): number | undefined {
  let best: number | undefined;
  const keep = (score: number) => void (best = best === undefined ? score : Math.min(best, score));
  // A typo's allowance grows with the name: one edit in a short name, a third of a long one.
  const allowance = Math.max(1, Math.floor(asked.length / 3));
  for (const form of forms) {
    if (form === asked) keep(0);
    else if (asked.length >= MIN_SUBSTRING && form.includes(asked)) keep(1 + (form.length - asked.length) / 1000);
    else if (form.length >= MIN_SUBSTRING && asked.includes(form)) keep(2 + (asked.length - form.length) / 1000);
    else {
      const distance = editDistance(asked, form, allowance);
      if (distance !== Infinity) keep(3 + distance);
    }
  }
  return best;
}

/**
 * At most MAX_SUGGESTIONS of `allowed` that resemble `asked`, closest first (ties in the order given).
 * `allowed` must hold only names the caller may use.
 */
export function suggestModels(asked: string, allowed: readonly string[]): string[] {
  const wanted = normalized(asked);
  if (wanted.length === 0) return [];
  const scored: Array<{ id: string; score: number; index: number }> = [];
  allowed.forEach((id, index) => {
    const score = closeness(wanted, formsOf(id));
    if (score !== undefined) scored.push({ id, score, index });
  });
  scored.sort((a, b) => a.score - b.score || a.index - b.index);
  return [...new Set(scored.map((entry) => entry.id))].slice(0, MAX_SUGGESTIONS);
}

/**
 * The `unknown_model` error: the route profiles the key may use (`profiles`, as before), and the
 * allowed profiles and concrete models that resemble the name (`suggestions`, possibly empty), the
 * first of them also in the message, which is what an SDK user reads.
 */
export function unknownModel(asked: string, profiles: readonly string[], models: readonly string[]): RouterError {
  const suggestions = suggestModels(asked, [...profiles, ...models]);
  const shown = asked.length > 128 ? `${asked.slice(0, 128)}…` : asked;
  const meant = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  return new RouterError('unknown_model', `The model '${shown}' is not a route profile or a model this key may use.${meant} Route profiles: ${profiles.join(', ')}.`, {
    param: 'model',
    details: { profiles: [...profiles], suggestions },
  });
}
