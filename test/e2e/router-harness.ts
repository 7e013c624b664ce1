/**
 * Starts a real router (config loaded from YAML, SQLite store, listhen on an ephemeral port) in front
 * of fake providers, and issues accounts and keys the way the CLI does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import type { Clock } from '../../src/core/clock.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import type { BuildOptions } from '../../src/server/build-router-deps.js';
import { sealSecret } from '../../src/core/secret-box.js';

const SHIPPED_CONFIG = new URL('../../config/', import.meta.url).pathname;
export const TEST_SECRET = 'test-secret-key-for-router-e2e-0123456789';

export type YamlPatch = Partial<Record<'server' | 'plans' | 'routes' | 'providers' | 'catalog' | 'pricing', (doc: any) => void>>;

/** Copy the shipped config into a temp dir, applying patches to the parsed documents. */
export function writeConfigDir(patch: YamlPatch = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'router-config-'));
  for (const file of readdirSync(SHIPPED_CONFIG)) {
    if (!file.endsWith('.yaml')) continue;
    const name = file.replace(/\.yaml$/, '') as keyof YamlPatch;
    const doc = parse(readFileSync(join(SHIPPED_CONFIG, file), 'utf8'));
    patch[name]?.(doc);
    writeFileSync(join(dir, file), stringify(doc));
  }
  return dir;
}

/** Point the shipped providers at fakes (ids: openai, anthropic, gemini). */
export function pointProvidersAt(urls: Partial<Record<string, string>>, extra: (doc: any) => void = () => {}) {
  return (doc: any) => {
    for (const provider of doc.providers) {
      if (urls[provider.id]) provider.baseUrl = urls[provider.id];
      provider.timeouts = { connectMs: 1000, firstByteMs: 1500, idleMs: 1500 };
    }
    extra(doc);
  };
}

export interface TestRouter {
  url: string;
  baseURL: string;
  server: RunningServer;
  configDir: string;
  /** Create an account (and a key) through the same services the CLI uses. */
  createAccount(plan?: string, options?: { providerKeys?: Record<string, string> }): Promise<{ accountId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export async function startTestRouter(options: { patch?: YamlPatch; env?: Record<string, string>; build?: BuildOptions; clock?: Clock } = {}): Promise<TestRouter> {
  const configDir = writeConfigDir(options.patch);
  const dataDir = mkdtempSync(join(tmpdir(), 'router-data-'));
  const env = {
    ROUTER_PORT: '0',
    ROUTER_HOST: '127.0.0.1',
    ROUTER_STORAGE: `sqlite:${join(dataDir, 'router.db')}`,
    ROUTER_SECRET_KEY: TEST_SECRET,
    ...options.env,
  };
  const config = loadConfig(configDir, env);
  const server = await startServer(config, { logger: silentLogger(), ...(options.clock ? { clock: options.clock } : {}), ...options.build });
  const { runtime } = server;
  return {
    url: server.url,
    baseURL: `${server.url}/v1`,
    server,
    configDir,
    async createAccount(plan = 'pro', accountOptions = {}) {
      const account = await runtime.store.createAccount({ email: `user-${Math.random().toString(36).slice(2)}@example.com`, plan }, 'test');
      const { key, record } = await runtime.keys.issue(account.id, 'test', 'test');
      for (const [providerId, providerKey] of Object.entries(accountOptions.providerKeys ?? {})) {
        await runtime.store.setProviderKey({ accountId: account.id, providerId, sealed: sealSecret(providerKey, TEST_SECRET), last4: providerKey.slice(-4) }, 'test');
      }
      return { accountId: account.id, key, keyId: record.id };
    },
    async close() {
      await server.close();
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A consola-shaped logger that records instead of printing (and lets tests assert nothing secret is logged). */
export function silentLogger(): any {
  const lines: string[] = [];
  const record = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  const logger: any = { lines, error: record, warn: record, info: record, log: record, success: record, ready: record, debug: record, withTag: () => logger };
  return logger;
}

/** A clock tests move by hand. */
export function manualClock(startIso = '2026-11-21T10:00:00.000Z') {
  let now = Date.parse(startIso);
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(iso: string) {
      now = Date.parse(iso);
    },
  };
}

/** Parse a response body as JSON, typed loosely for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json();
}
