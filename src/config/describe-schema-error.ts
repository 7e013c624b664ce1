import type { ErrorObject } from 'ajv/dist/2020.js';
import { escapePointerSegment, splitPointer, type PointedProblem } from './locate-pointer.js';

/** Schema keyword next to a `pattern` or `anyOf`, saying in words what it accepts (ajv would print the regex or every branch). */
export const PATTERN_MEANING = 'x-pattern-meaning';

/**
 * Turns one ajv error into a message an operator can act on, addressed at the key or value to fix.
 * Messages never include the offending value: it may have come from a secret reference.
 * Returns undefined for errors that only repeat another one (a failed `if` is reported by its `then`).
 */
export function describeSchemaError(error: ErrorObject): PointedProblem | undefined {
  // The inner errors of propertyNames repeat the outer one with less context.
  if (error.propertyName !== undefined) return undefined;
  // Each branch of an anyOf failing says less than the anyOf itself, which names what is accepted.
  if (error.schemaPath.includes('/anyOf/')) return undefined;
  const pointer = error.instancePath;
  const path = displayPath(pointer);
  const subject = path === '' ? 'file ' : `${path} `;
  switch (error.keyword) {
    case 'if':
      return undefined;
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const suggestion = closestName(key, known);
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
      const where = path === '' ? '' : ` in ${path}`;
      return { pointer: `${pointer}/${escapePointerSegment(key)}`, target: 'key', message: `unknown key "${key}"${where}${hint}` };
    }
    case 'required':
      return { pointer, target: 'value', message: `${subject}is missing required key "${String(error.params.missingProperty)}"` };
    case 'propertyNames': {
      const key = String(error.params.propertyName);
      return { pointer: `${pointer}/${escapePointerSegment(key)}`, target: 'key', message: `invalid key "${key}" in ${path}` };
    }
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]).map(String).join(', ');
      return { pointer, target: 'value', message: `${subject}must be one of: ${allowed}` };
    }
    case 'anyOf':
    case 'pattern': {
      const meaning = (error.parentSchema as Record<string, unknown> | undefined)?.[PATTERN_MEANING];
      if (typeof meaning === 'string') return { pointer, target: 'value', message: `${subject}must be ${meaning}` };
      break;
    }
    case 'minItems':
      if (error.params.limit === 1) return { pointer, target: 'value', message: `${subject}must not be empty` };
      break;
  }
  return { pointer, target: 'value', message: `${subject}${error.message ?? 'is invalid'}` };
}

/** `/routes/0/tiers/1` → `routes[0].tiers[1]`, the way the YAML reads. */
function displayPath(pointer: string): string {
  return splitPointer(pointer)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

/** The known key nearest a misspelt one, if it is within two edits (case ignored). */
function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
