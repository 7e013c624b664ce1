/**
 * Reads a V8 .heapsnapshot (node --heapsnapshot-signal) and tells what the heap holds: the total of every
 * object's own (shallow) size, and the largest groups by constructor or kind (`Object`, `(string)`,
 * `Buffer`, closures, …), with their counts. Retained sizes need the full dominator tree and are left to
 * Chrome DevTools (Memory → Load); this is the quick look for a report.
 */
import { readFileSync } from 'node:fs';

/** @returns {{ totalMb: number, nodes: number, top: Array<{ name: string, count: number, mb: number }> }} */
export function summarizeHeapSnapshot(path, top = 15) {
  const snapshot = JSON.parse(readFileSync(path, 'utf8'));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const { nodes, strings } = snapshot;
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    total += size;
    // Objects group by constructor name; strings, code, closures and the rest by their kind.
    const name = type === 'object' || type === 'native' ? strings[nodes[i + nameAt]] : `(${type})`;
    const group = groups.get(name) ?? { name, count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += size;
    groups.set(name, group);
  }
  const largest = [...groups.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top);
  return { totalMb: total / 2 ** 20, nodes: nodes.length / width, top: largest.map((g) => ({ name: g.name, count: g.count, mb: g.bytes / 2 ** 20 })) };
}
