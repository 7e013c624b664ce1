/**
 * The body rule that holds a native pass-through's request to its listed top-level fields
 * (formats/top-level-fields.ts). Fields that are the router's or that could redirect a request are taken
 * off first, as on every route; then any field not listed is refused with 400 `unsupported_parameter`
 * naming it, before admission, so it is never counted and never reaches an upstream.
 */
import { RouterError } from '../core/errors.js';
import { OPENROUTER_FIELDS } from '../formats/top-level-fields.js';
import { REDIRECTING_FIELDS } from '../formats/redirecting-fields.js';
import type { BodyRule } from './stages/read-json-body.js';

/** Read by the provider-preferences stage, which takes it off the body itself. */
const READ_LATER = 'provider';

export function onlyListedFields(listed: ReadonlySet<string>, api: string): BodyRule {
  return (body) => {
    for (const field of Object.keys(body)) {
      if (field === READ_LATER || listed.has(field)) continue;
      if (OPENROUTER_FIELDS.has(field) || REDIRECTING_FIELDS.has(field)) {
        delete body[field];
        continue;
      }
      throw new RouterError('unsupported_parameter', `Unsupported parameter: '${field}' is not a field of the ${api} API the router passes on (see the router's docs for the list).`, {
        param: field,
      });
    }
  };
}

/** Several rules in order; the first refusal wins. */
export function allRules(...rules: readonly BodyRule[]): BodyRule {
  return (body) => {
    for (const rule of rules) rule(body);
  };
}
