/**
 * What `router --help` and `router check` load (issue 35: the CLI starts in a third of a second because a
 * command imports only what it runs). Measured in modules, not milliseconds: bench/cli-startup.mjs times
 * the start; this keeps a new top-level import from silently putting the stores, the server or the
 * schema compiler back on every start. Runs the built bin/router (npm run build first).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/router', import.meta.url).pathname;
const CONFIG = new URL('../../config', import.meta.url).pathname;
const REPORTER = new URL('./fixtures/report-loaded-modules.mjs', import.meta.url).href;

/** Runs the CLI with the load reporter; returns its output and the loaded modules as `dist/…` or package paths. */
async function loadedBy(...args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ROUTER_')));
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', REPORTER, BIN, ...args], { env, timeout: 30_000 });
  const modules = [...stderr.matchAll(/^loaded (\S+)$/gm)].map(([, url]) => url!.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/'));
  return { stdout, modules };
}

// Never needed to print help or to check a config: the stores and their drivers, the server, the
// providers and routing, and the schema compiler (check uses the validators the build wrote out).
const NEVER_AT_START = [
  /^dist\/(http|runtime|providers|routing|upstream|translators|app|mail|metrics|tracing|alerts|billing)\//,
  /^dist\/stores\/(open-|sqlite|postgres|migrations|cluster)/,
  /^dist\/cli\/(cli-context|commands\/serve-process)\.js$/,
  /^node_modules\/(better-sqlite3|pg|ioredis|h3|undici|@sinclair\/typebox|@opentelemetry|prom-client|stripe|nodemailer|eta|marked)\//,
  /^node_modules\/ajv\/dist\/(2020|ajv|core)\.js$/,
];

describe('what a CLI start loads', () => {
  it('router --help loads commander and the command definitions, no command code and no consola or yaml', async () => {
    const { stdout, modules } = await loadedBy('--help');
    expect(stdout).toContain('Usage: router');
    expect(modules).toContain('dist/cli/commands/check.js');
    expect(modules.filter((module) => /-actions\.js$/.test(module))).toEqual([]);
    expect(modules.filter((module) => /^node_modules\/(consola|yaml)\//.test(module))).toEqual([]);
    expect(modules.filter((module) => NEVER_AT_START.some((pattern) => pattern.test(module)))).toEqual([]);
  }, 60_000);

  it('router check loads the check and the precompiled validators, not TypeBox, the stores or the server', async () => {
    const { stdout, modules } = await loadedBy('check', '--config', CONFIG, '--json');
    expect(JSON.parse(stdout)).toMatchObject({ ok: true });
    expect(modules.filter((module) => /-actions\.js$/.test(module))).toEqual(['dist/cli/commands/check-actions.js']);
    expect(modules).toContain('dist/config/config-validators.js');
    expect(modules.filter((module) => NEVER_AT_START.some((pattern) => pattern.test(module)))).toEqual([]);
  }, 60_000);
});
