/**
 * JSON has no Infinity, but JSON.parse turns a number too large for a double (`1e309`, a 400-digit
 * integer) into one; JSON.stringify then sends it upstream as `null`, and a schema's `integer` check
 * lets it through. Returns the path of the first such number (depth first, in document order), in the
 * `param` notation of error bodies (`messages[0].x[2]`), or undefined. The value is already bounded in
 * size (check-json-bounds.ts).
 */
export function findNonFiniteNumber(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : '';
  // Every request body goes through here: only containers and offending numbers are visited, and a
  // path is spelled out only for the number found, not for every member on the way.
  const pending: Visit[] = [{ value, parent: undefined, key: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (typeof current === 'number') return pathOf(next);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) visitLater(pending, current[i], next, i);
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) visitLater(pending, (current as Record<string, unknown>)[keys[i]!], next, keys[i]!);
    }
  }
  return undefined;
}

interface Visit {
  value: unknown;
  parent: Visit | undefined;
  /** Index in the parent array, or member name in the parent object ('' for the root). */
  key: number | string;
}

function visitLater(pending: Visit[], value: unknown, parent: Visit, key: number | string): void {
  if (typeof value === 'number' ? !Number.isFinite(value) : value !== null && typeof value === 'object') pending.push({ value, parent, key });
}

function pathOf(visit: Visit): string {
  if (visit.parent === undefined) return '';
  const above = pathOf(visit.parent);
  if (typeof visit.key === 'number') return `${above}[${visit.key}]`;
  return above === '' ? visit.key : `${above}.${visit.key}`;
}
