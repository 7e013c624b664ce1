/**
 * What `router --help` and `router check` load (issue 35: the CLI starts in a third of a second because a
 * command imports only what it runs). Measured in modules, not milliseconds: bench/cli-startup.mjs times
 * the start; this keeps a new top-level import from silently putting the stores, the server or the
 * schema compiler back on every start; and that `router serve` leaves what is switched off (the tracing
 * SDK, the SMTP client) unloaded. Runs the built bin/router (npm run build first).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/router', import.meta.url).pathname;
const CONFIG = new URL('../../config', import.meta.url).pathname;
const REPORTER = new URL('./fixtures/report-loaded-modules.mjs', import.meta.url).href;

const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ROUTER_') && !name.startsWith('OTEL_')));
const modulesIn = (stderr: string) => [...stderr.matchAll(/^loaded (\S+)$/gm)].map(([, url]) => url!.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/'));

/** Runs the CLI with the load reporter; returns its output and the loaded modules as `dist/…` or package paths. */
async function loadedBy(...args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', REPORTER, BIN, ...args], { env: cleanEnv(), timeout: 30_000 });
  return { stdout, modules: modulesIn(stderr) };
}

/** Starts `router serve` (a throwaway SQLite file, a free port) until it listens, stops it, and returns what it had loaded. */
async function loadedByServe(env: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'router-serve-loads-'));
  const child = spawn(process.execPath, ['--import', REPORTER, BIN, 'serve', '--config', CONFIG, '--json'], {
    env: { ...cleanEnv(), ROUTER_STORAGE: `sqlite:${join(dir, 'router.db')}`, ROUTER_HOST: '127.0.0.1', ROUTER_PORT: '0', ROUTER_SECRET_KEY: randomBytes(32).toString('hex'), ...env },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const listening = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      void exited.then(() => reject(new Error(`router serve exited before listening:\n${stderr.replace(/^loaded .*\n/gm, '')}`)));
    });
    expect(JSON.parse(listening)).toHaveProperty('listening');
    // What it loaded while starting: the reporter writes each module as it loads, before the listening line.
    return modulesIn(stderr);
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

// The SDK and what only it needs (the W3C propagator in core, resources, semantic conventions); the API package is light and always there.
const TRACING_SDK = /^node_modules\/@opentelemetry\/(sdk-trace-base|exporter-trace-otlp-http|core|resources|semantic-conventions)\//;
const MAILER = /^node_modules\/nodemailer\//;

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

  it('router serve loads the tracing SDK only when tracing is on, and the SMTP client not before its first message', async () => {
    const off = await loadedByServe({});
    expect(off).toContain('dist/runtime/start-server.js');
    expect(off.filter((module) => TRACING_SDK.test(module) || MAILER.test(module))).toEqual([]);
    // Nothing listens on port 9 of loopback: no span is made while starting, so nothing is sent there.
    const on = await loadedByServe({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ROUTER_SMTP_URL: 'smtp://127.0.0.1:9' });
    expect(on.filter((module) => TRACING_SDK.test(module)).length).toBeGreaterThan(0);
    expect(on.filter((module) => MAILER.test(module))).toEqual([]);
  }, 90_000);
});
