/**
 * A comma-separated header's items (RFC 9110's list syntax, as `anthropic-beta` uses it), trimmed, empty
 * ones dropped; a header sent several times arrives as an array and reads as one list.
 */
export function splitHeaderList(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const joined = typeof value === 'string' ? value : value.join(',');
  return joined
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
