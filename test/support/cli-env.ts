/**
 * The built CLI (bin/router, real processes) on a fresh SQLite store in a temporary directory, for the
 * CLI tests: `cli` returns the exit code and both streams, `json` runs with --json and expects exit 0.
 * Needs `npm run build` (dist/) as the other CLI tests do.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);
const BIN = new URL('../../bin/router', import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliEnv {
  dataDir: string;
  /** The SQLite file the CLI's store uses. */
  dbPath: string;
  env: NodeJS.ProcessEnv;
  cli(...args: string[]): Promise<CliResult>;
  json(...args: string[]): Promise<any>;
  cleanUp(): void;
}

export function startCliEnv(prefix: string, extraEnv: NodeJS.ProcessEnv = {}): CliEnv {
  const dataDir = mkdtempSync(join(tmpdir(), `router-${prefix}-`));
  const dbPath = join(dataDir, 'router.db');
  const env = { ...process.env, ROUTER_STORAGE: `sqlite:${dbPath}`, ROUTER_SECRET_KEY: 'cli-test-secret-0123456789abcdef', CONSOLA_LEVEL: '3', ...extraEnv };
  const cli = async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run('node', [BIN, ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  return { dataDir, dbPath, env, cli, json, cleanUp: () => rmSync(dataDir, { recursive: true, force: true }) };
}
