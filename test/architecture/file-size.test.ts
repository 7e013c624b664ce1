/**
 * No file in src/ over 400 lines (issue 21): past that a file holds more than one idea. The failure
 * lists every offender with its size, largest first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './folder-graph.js';

const MAX_LINES = 400;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Lines as an editor numbers them: a final newline does not start another line. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('file size in src/', () => {
  it('counts lines as an editor does', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\n\n')]).toEqual([0, 1, 1, 2, 2]);
  });

  it(`holds no file over ${MAX_LINES} lines`, () => {
    const src = join(repoRoot, 'src');
    const files = filesUnder(src);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .map((file) => ({ file: relative(repoRoot, file), lines: lineCount(readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(offenders, `split these into files of one idea each (at most ${MAX_LINES} lines)`).toEqual([]);
  });
});
