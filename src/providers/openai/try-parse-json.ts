/** JSON.parse for upstream text that may not be JSON at all (proxy HTML, truncated bodies): undefined then. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
