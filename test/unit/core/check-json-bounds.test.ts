import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonBounds } from '../../../src/core/check-json-bounds.js';

/** Reference measures over a parsed value: depth of containers and the node count the scanner counts. */
function measure(value: unknown): { depth: number; nodes: number } {
  if (Array.isArray(value)) {
    const inner = value.map(measure);
    return { depth: 1 + Math.max(0, ...inner.map((m) => m.depth)), nodes: 1 + inner.reduce((sum, m) => sum + m.nodes, 0) };
  }
  if (value !== null && typeof value === 'object') {
    const inner = Object.values(value).map(measure);
    // Member names are nodes too.
    return { depth: 1 + Math.max(0, ...inner.map((m) => m.depth)), nodes: 1 + inner.length + inner.reduce((sum, m) => sum + m.nodes, 0) };
  }
  return { depth: 0, nodes: 1 };
}

describe('checkJsonBounds', () => {
  it('agrees with a reference count on any JSON text, pretty-printed or not', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 60 }), (value, pretty, maxDepth, maxNodes) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const { depth, nodes } = measure(JSON.parse(text));
        const violation = checkJsonBounds(text, { maxDepth, maxNodes });
        if (depth > maxDepth || nodes > maxNodes) expect(violation).toBeDefined();
        else expect(violation).toBeUndefined();
        if (violation?.bound === 'depth') expect(depth).toBeGreaterThan(maxDepth);
        if (violation?.bound === 'nodes') expect(nodes).toBeGreaterThan(maxNodes);
      }),
      { numRuns: 2000 },
    );
  });

  it('names the top-level member the bound was exceeded in, whatever its escapes', () => {
    const deep = '['.repeat(100) + ']'.repeat(100);
    expect(checkJsonBounds(`{"model":"x","meta\\u0064ata":${deep}}`, { maxDepth: 64, maxNodes: 1000 })).toEqual({ bound: 'depth', member: 'metadata' });
    expect(checkJsonBounds(`{"a": "{[[[[", "b" : ${deep}}`, { maxDepth: 64, maxNodes: 1000 })).toEqual({ bound: 'depth', member: 'b' });
    expect(checkJsonBounds(deep, { maxDepth: 64, maxNodes: 1000 })).toEqual({ bound: 'depth', member: null });
    expect(checkJsonBounds(`{"messages":[${'0,'.repeat(2000)}0]}`, { maxDepth: 64, maxNodes: 1000 })).toEqual({ bound: 'nodes', member: 'messages' });
  });

  it('is not fooled by brackets and quotes inside strings', () => {
    const text = JSON.stringify({ text: '[[[[[[[[[[{{{{{{{{ \\" "quoted" ]]]]' });
    expect(checkJsonBounds(text, { maxDepth: 1, maxNodes: 3 })).toBeUndefined();
  });
});
