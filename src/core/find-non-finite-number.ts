/**
 * JSON has no Infinity, but JSON.parse turns a number too large for a double (`1e309`, a 400-digit
 * integer) into one; JSON.stringify then sends it upstream as `null`, and a schema's `integer` check
 * lets it through. Returns the path of the first such number, in the `param` notation of error bodies
 * (`messages[0].x[2]`), or undefined. The value is already bounded in size (check-json-bounds.ts).
 */
export function findNonFiniteNumber(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path } = next;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return path;
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], path: `${path}[${i}]` });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i]!;
        pending.push({ value: member, path: path === '' ? key : `${path}.${key}` });
      }
    }
  }
  return undefined;
}
