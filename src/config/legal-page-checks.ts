import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RawConfigFiles } from './config-files.js';
import type { FileProblem } from './file-problem.js';

/**
 * app.legal names Markdown files (relative to the configuration directory) that the app shows as the
 * terms and privacy pages: each must be a readable file, so a typo stops `router check` and the start
 * instead of a footer link to a page that is not there.
 */
export function legalPageProblems(dir: string, files: Partial<RawConfigFiles>): FileProblem[] {
  const legal = files.server?.app.legal ?? {};
  const problems: FileProblem[] = [];
  for (const page of ['terms', 'privacy'] as const) {
    const path = legal[page];
    if (path === undefined) continue;
    let isFile = false;
    try {
      isFile = statSync(resolve(dir, path)).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) problems.push({ file: 'server', pointer: `/app/legal/${page}`, target: 'value', message: `app.legal.${page}: no file at ${path} (relative to the configuration directory)` });
  }
  return problems;
}
