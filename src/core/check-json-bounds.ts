/**
 * Bounds a JSON text's nesting depth and node count BEFORE it is parsed. Parsing is where the cost is:
 * V8 takes seconds (on the one thread every account shares) to build 10 MB of nested arrays, and code
 * that later walks or serializes a deep value overflows the stack. One pass over the characters, no
 * allocation; it assumes nothing about validity (JSON.parse still decides that) and stops at the first
 * bound exceeded.
 */

export interface JsonBounds {
  /** Deepest nesting of objects and arrays (the top-level object is depth 1). */
  maxDepth: number;
  /** Most nodes: every object, array, member name, string, number, true, false and null. */
  maxNodes: number;
}

export interface JsonBoundsViolation {
  bound: 'depth' | 'nodes';
  /** The top-level member the bound was exceeded in (when the text is an object), for `param`. */
  member: string | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** First characters of numbers and literals: `-`, digits, and t(rue), f(alse), n(ull). */
function startsPrimitive(code: number): boolean {
  return code === 0x2d || (code >= 0x30 && code <= 0x39) || code === 0x74 || code === 0x66 || code === 0x6e;
}

/** Characters that end a number or literal. */
function endsPrimitive(code: number): boolean {
  return code === 0x2c || code === 0x3a || code === OPEN_OBJECT || code === CLOSE_OBJECT || code === OPEN_ARRAY || code === CLOSE_ARRAY || code === QUOTE || code <= 0x20;
}

export function checkJsonBounds(text: string, bounds: JsonBounds): JsonBoundsViolation | undefined {
  let depth = 0;
  let nodes = 0;
  let inString = false;
  let inPrimitive = false;
  let stringStart = 0;
  /** Where the text of the top-level member name currently in force starts and ends. */
  let member: [number, number] | undefined;
  const violation = (bound: JsonBoundsViolation['bound']): JsonBoundsViolation => ({ bound, member: memberName(text, member) });

  for (let i = 0; i < text.length; i++) {
    if (inString) {
      // Jump to the closing quote: prompts are most of a body, and most of it is inside strings.
      i = closingQuote(text, i);
      inString = false;
      // A string at depth 1 followed by ':' is a top-level member name.
      if (depth === 1 && nextSignificant(text, i + 1) === 0x3a) member = [stringStart, i + 1];
      continue;
    }
    const code = text.charCodeAt(i);
    if (inPrimitive) {
      if (!endsPrimitive(code)) continue;
      inPrimitive = false;
    }
    if (code === QUOTE) {
      inString = true;
      stringStart = i;
      if (++nodes > bounds.maxNodes) return violation('nodes');
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > bounds.maxDepth) return violation('depth');
      if (++nodes > bounds.maxNodes) return violation('nodes');
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth--;
    } else if (startsPrimitive(code)) {
      inPrimitive = true;
      if (++nodes > bounds.maxNodes) return violation('nodes');
    }
  }
  return undefined;
}

/** The index of the quote that closes the string open at `from` (one not escaped by an odd run of backslashes), or the end. */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

function nextSignificant(text: string, from: number): number | undefined {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x20) return code;
  }
  return undefined;
}

function memberName(text: string, span: [number, number] | undefined): string | null {
  if (!span) return null;
  try {
    const name: unknown = JSON.parse(text.slice(span[0], span[1]));
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}
