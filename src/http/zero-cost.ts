/**
 * A cached answer as a hit shows it: `usage.cost` 0 and every `usage.cost_details` figure 0 wherever a
 * usage object carries them (chat's usage, a Responses event's `response.usage`, a chunk's usage), in a
 * JSON document or in every `data:` line of an event stream. Nothing else changes: the event grammar,
 * the order of events and the token counts are the original's.
 */
export function zeroCost(body: string, contentType: string): string {
  if (!body.includes('"cost"')) return body;
  if (!contentType.startsWith('text/event-stream')) return rewriteJson(body);
  return body
    .split('\n')
    .map((line) => (line.startsWith('data: {') && line.includes('"cost"') ? `data: ${rewriteJson(line.slice(6))}` : line))
    .join('\n');
}

function rewriteJson(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    zeroUsageCosts(value, 0);
    return JSON.stringify(value);
  } catch {
    return text;
  }
}

/** Depth-bounded: answers nest usage a few levels down at most. */
function zeroUsageCosts(value: unknown, depth: number): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) zeroUsageCosts(item, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const usage = record.usage;
  if (usage !== null && typeof usage === 'object' && !Array.isArray(usage)) {
    const fields = usage as Record<string, unknown>;
    if (typeof fields.cost === 'number') fields.cost = 0;
    const details = fields.cost_details;
    if (details !== null && typeof details === 'object') {
      for (const name of Object.keys(details)) if (typeof (details as Record<string, unknown>)[name] === 'number') (details as Record<string, unknown>)[name] = 0;
    }
  }
  for (const [name, child] of Object.entries(record)) if (name !== 'usage' && child !== null && typeof child === 'object') zeroUsageCosts(child, depth + 1);
}
