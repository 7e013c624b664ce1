import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import type { ConfigProblem } from './config-error.js';
import { locatePointer, type PointerTarget, type Position } from './locate-pointer.js';

/** One YAML file parsed with positions, so later stages can point at the line that needs fixing. */
export interface YamlFile {
  /** The path as given, used verbatim in problems. */
  path: string;
  /** Plain data (undefined when the file is missing or not valid YAML). */
  data: unknown;
  /** Missing file or YAML syntax errors; when present, `data` must not be validated further. */
  problems: ConfigProblem[];
  locate(pointer: string, target: PointerTarget): Position;
}

export function readYamlFile(path: string): YamlFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'file cannot be read';
    return { path, data: undefined, problems: [{ file: path, line: 0, column: 0, message: reason }], locate: nowhere };
  }
  return parseYamlText(path, text);
}

/**
 * Parses without `prettyErrors`: its messages embed a frame of the source text, which could
 * contain a credential; the position is taken from the LineCounter instead.
 * Only the first syntax error is reported: the parser's later errors are nearly always knock-on
 * effects of it (one tab can yield ten), and they point away from the line to fix.
 */
function parseYamlText(path: string, text: string): YamlFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const problems = doc.errors.slice(0, 1).map((error): ConfigProblem => {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    return { file: path, line, column: col, message: `YAML syntax: ${error.message}` };
  });
  return {
    path,
    data: problems.length === 0 ? doc.toJS({ maxAliasCount: 100 }) : undefined,
    problems,
    locate: (pointer, target) => locatePointer(doc, lineCounter, pointer, target),
  };
}

function nowhere(): Position {
  return { line: 0, column: 0 };
}
