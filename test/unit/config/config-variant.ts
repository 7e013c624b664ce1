import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfig } from '../../../src/config/check-config.js';
import { formatConfigProblem } from '../../../src/config/config-error.js';

/**
 * A frozen copy of the shipped config/, so the line numbers asserted in tests do not move when the
 * shipped YAML is edited. Variants are written to a temporary directory with one edit per file.
 */
export const BASE_CONFIG_DIR = join(import.meta.dirname, '../../fixtures/config-base');

type Edit = (text: string) => string;

const created: string[] = [];

/** Copies the base config into a new temporary directory, applying `edits` keyed by file name. */
export function writeConfigVariant(edits: Readonly<Record<string, Edit>> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'router-config-'));
  created.push(dir);
  for (const name of readdirSync(BASE_CONFIG_DIR)) {
    const edit = edits[name];
    if (edit) writeFileSync(join(dir, name), edit(readFileSync(join(BASE_CONFIG_DIR, name), 'utf8')));
    else copyFileSync(join(BASE_CONFIG_DIR, name), join(dir, name));
  }
  return dir;
}

/** An edit replacing the one occurrence of `from`; throws when it is absent or repeated, so a test cannot silently edit nothing. */
export function replaceOnce(from: string, to: string): Edit {
  return (text) => {
    const at = text.indexOf(from);
    if (at === -1 || text.indexOf(from, at + 1) !== -1) throw new Error(`expected exactly one ${JSON.stringify(from)}`);
    return text.slice(0, at) + to + text.slice(at + from.length);
  };
}

export function removeConfigVariants(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The problems `router check` would print for `dir`, with the directory prefix removed for brevity. */
export function listProblems(dir: string, env: NodeJS.ProcessEnv = {}): string[] {
  return checkConfig(dir, env).problems.map((problem) => formatConfigProblem(problem).replace(`${dir}/`, ''));
}
