/**
 * A case-insensitive match of a name from `req.rawHeaders`, without lower-casing the usual spellings:
 * raw header lists are scanned on every request (Host, Authorization), where toLowerCase on each name
 * cost about twice the scan itself.
 */
export function isHeaderName(name: string, lower: string, usual: string): boolean {
  return name.length === lower.length && (name === usual || name === lower || name.toLowerCase() === lower);
}
