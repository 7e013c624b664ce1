import { isAlias, isCollection, isMap, isNode, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/** Whether a problem is about a key itself (an unknown key) or about the value under it. */
export type PointerTarget = 'key' | 'value';

/** A problem addressed by a JSON pointer into one file's data, before it is given a line and column. */
export interface PointedProblem {
  pointer: string;
  target: PointerTarget;
  message: string;
}

export interface Position {
  line: number;
  column: number;
}

/** Escapes one segment for a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

interface Step {
  key: unknown;
  value: unknown;
}

/**
 * Finds where a JSON pointer (as ajv reports it) sits in the YAML source. When the pointer goes past
 * what the file holds (a value filled in by a schema default), the deepest node that exists is used.
 * A collection under a key is reported at its key, because that is the line an operator reads as
 * "the object"; an empty value (`port:`) is reported at its key too.
 */
export function locatePointer(
  doc: Document,
  lineCounter: LineCounter,
  pointer: string,
  target: PointerTarget,
): Position {
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  let current: Step = { key: undefined, value: doc.contents };
  let position = startOf(current.value) ?? 0;
  for (const segment of splitPointer(pointer)) {
    const next = childOf(doc, current.value, segment);
    if (!next) return at(position);
    current = next;
    position = startOf(next.key) ?? startOf(next.value) ?? position;
  }
  const keyStart = startOf(current.key);
  const valueStart = startOf(current.value);
  const useKey =
    keyStart !== undefined &&
    (target === 'key' || valueStart === undefined || isCollection(current.value) || isEmptyScalar(current.value));
  return at(useKey ? keyStart : (valueStart ?? position));
}

function childOf(doc: Document, node: unknown, segment: string): Step | undefined {
  const container = isAlias(node) ? node.resolve(doc) : node;
  if (isMap(container)) {
    const pair = container.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
    return pair && { key: pair.key, value: pair.value };
  }
  if (isSeq(container) && /^\d+$/.test(segment)) {
    const item: unknown = container.items[Number(segment)];
    return item === undefined ? undefined : { key: undefined, value: item };
  }
  return undefined;
}

function startOf(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.range != null && node.range[0] === node.range[1];
}
