/**
 * Starts a real router (config loaded from YAML, SQLite store, Node's HTTP server on an ephemeral port) in front
 * of fake providers, and issues accounts and keys the way the CLI does. The routing helpers at the end
 * start one fake per provider, order the route, and read responses as the SDK or as raw SSE.
 */
import type { LedgerRecord } from '../../src/stores/ledger-store.js';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import type { Clock } from '../../src/core/clock.js';
import { startServer, type RunningServer } from '../../src/runtime/start-server.js';
import type { BuildOptions } from '../../src/runtime/build-runtime.js';
import { sealSecret } from '../../src/core/secret-box.js';
import OpenAI from 'openai';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { FakeProvider } from '../fakes/fake-provider.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';

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
    // The port is picked at random; links in tests name the documented default address instead.
    ROUTER_BASE_URL: 'http://localhost:8787',
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
  /** The same lines with the level each was logged at. */
  const entries: Array<{ level: string; line: string }> = [];
  const recorder = (level: string) => (...args: unknown[]) => {
    // A trailing object holds the line's fields (create-logger.ts): recorded as JSON so tests can read them.
    const line = args.map((arg) => (typeof arg === 'object' && arg !== null ? JSON.stringify(arg) : String(arg))).join(' ');
    lines.push(line);
    entries.push({ level, line });
  };
  const logger: any = { lines, entries, withTag: () => logger };
  for (const level of ['error', 'warn', 'info', 'log', 'success', 'ready', 'debug', 'fatal', 'trace']) logger[level] = recorder(level);
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

/** A request's usage-ledger records, waiting up to five seconds for the writer to flush them. */
export async function ledgerRecordsOf(router: TestRouter, requestId: string | null): Promise<LedgerRecord[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await router.server.runtime.usage.store.findRecords({ requestId: requestId ?? '' });
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Parse a response body as JSON, typed loosely for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json();
}

// ---- Routing e2e helpers: fakes, route order, the SDK client, raw SSE ----

/** The BYOK provider keys the routing tests give accounts (what each fake must receive). */
export const PROVIDER_KEYS = { openai: 'sk-test-openai-1234', anthropic: 'sk-ant-test-5678', gemini: 'AIza-test-gemini-9012' } as const;

export type ProviderId = keyof typeof PROVIDER_KEYS;

/** The upstream model each provider gets in routes patched by `frontierOrder`. */
export const UPSTREAM_MODEL: Record<ProviderId, string> = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' };

export interface Fakes {
  openai: OpenAIFake;
  anthropic: FakeProvider;
  gemini: FakeProvider;
  /** Base URLs, ready for `pointProvidersAt`. */
  urls: Record<ProviderId, string>;
  reset(): void;
  close(): Promise<void>;
}

/** One fake per shipped provider. */
export async function startFakes(): Promise<Fakes> {
  const [openai, anthropic, gemini] = await Promise.all([startOpenAIFake(), startAnthropicFake(), startGeminiFake()]);
  const all = [openai, anthropic, gemini];
  return {
    openai,
    anthropic,
    gemini,
    urls: { openai: openai.baseUrl, anthropic: anthropic.baseUrl, gemini: gemini.baseUrl },
    reset: () => all.forEach((fake) => fake.reset()),
    close: async () => void (await Promise.all(all.map((fake) => fake.close()))),
  };
}

/** routes.yaml patch: `router/frontier` tries these providers one tier each, in this order. */
export function frontierOrder(providers: readonly ProviderId[], retryBudget = 3) {
  return (doc: any) => {
    const frontier = doc.routes.find((route: { id: string }) => route.id === 'router/frontier');
    frontier.retryBudget = retryBudget;
    frontier.tiers = providers.map((provider) => [{ provider, model: UPSTREAM_MODEL[provider] }]);
  };
}

/** The official SDK pointed at the router, without its own retries (they would blur retry counts). */
export function sdkClient(router: TestRouter, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: router.baseURL, maxRetries: 0 });
}

/** POST a JSON body to a /v1 path with raw fetch, as a client with a descriptive User-Agent would. */
export function postV1(router: TestRouter, apiKey: string, path: string, body: object): Promise<Response> {
  return fetch(`${router.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': 'router-tests/1.0' },
    body: JSON.stringify(body),
  });
}

export interface RawSseEvent {
  event?: string;
  data: string;
}

/** Read a whole SSE body with fetch, event by event (no SDK in between). */
export async function readSse(response: Response): Promise<RawSseEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      return event === undefined ? { data } : { event, data };
    });
}

/** Poll until `check` holds (effects that land a moment after the client saw its answer). */
export async function waitFor(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// ---- Limits e2e helpers: plan patches, limit headers, spawned router processes, the built CLI ----

/** plans.yaml patch: override the monthly quota and per-minute limit of the named plans. */
export function planLimits(limits: Record<string, { monthlyRequests?: number; requestsPerMinute?: number; maxConcurrentRequests?: number }>) {
  return (doc: any) => {
    for (const plan of doc.plans) Object.assign(plan, limits[plan.id] ?? {});
  };
}

const LIMIT_HEADER_NAMES = [
  'x-quota-limit',
  'x-quota-used',
  'x-quota-remaining',
  'x-quota-period',
  'x-quota-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
] as const;

/** The quota and rate-limit headers of a response (absent ones left out), for exact `toEqual` assertions. */
export function limitHeadersOf(response: Response): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of LIMIT_HEADER_NAMES) {
    const value = response.headers.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}

/** POST a one-message chat completion for `router/frontier` the way a well-behaved client does. */
export function postChat(baseURL: string, key: string, extra: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    signal,
    headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

/** A TCP port that was free a moment ago: a spawned router must be told its port to be reachable. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RouterProcess {
  url: string;
  baseURL: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** The exit code once the process has exited (null while it runs or when a signal ended it). */
  exitCode(): number | null;
  /** Send a signal (e.g. SIGTERM to start a graceful drain). */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

const BIN_ROUTER = new URL('../../bin/router', import.meta.url).pathname;

/**
 * Starts something on a port that was free when chosen: another test's process may take it before the
 * router listens, which then refuses with "address in use", and it is started again on another port
 * (three tries in all).
 */
export async function onAFreePort<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('address in use');
      if (!portTaken || attempt === 3) throw error;
    }
  }
}

/**
 * `node bin/router serve` (build first) on a free port (onAFreePort); resolves once /readyz answers 200.
 * Readiness counts only once this child has said it listens, so a /readyz answered by whoever took the
 * port is never mistaken for it. The 30 s bound is for a router that never starts: a fresh-clone CI run on
 * a slow 2-core VM, with four test files and the container stage beside it (load average 15), saw
 * single-process starts pass 15 s.
 */
export function startRouterProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<RouterProcess> {
  return onAFreePort(() => startRouterProcessOnce(env, readyTimeoutMs));
}

async function startRouterProcessOnce(env: Record<string, string>, readyTimeoutMs: number): Promise<RouterProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN_ROUTER, 'serve'], {
    env: { ...process.env, ROUTER_HOST: '127.0.0.1', ROUTER_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => void (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (printed += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + readyTimeoutMs;
  const listening = () => printed.includes('router listening on');
  while (!listening() || (await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`router process on port ${port} did not become ready:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    baseURL: `${url}/v1`,
    output: () => printed,
    exitCode: () => child.exitCode,
    signal: (name) => void child.kill(name),
    exited,
    stop,
  };
}

/** Run the built CLI as it is (no --json added): its exit code and both outputs, never rejecting. */
export async function runCli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN_ROUTER, ...args], { env: { ...process.env, ...env }, timeout: 15_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run the built CLI with `--json` and parse its one document; a non-zero exit rejects with its stderr. */
export async function runCliJson(env: Record<string, string>, ...args: string[]): Promise<any> {
  const options = { env: { ...process.env, ...env }, timeout: 15_000 };
  const { stdout } = await promisify(execFile)(process.execPath, [BIN_ROUTER, ...args, '--json'], options);
  return JSON.parse(stdout);
}

export interface BurstOutcome {
  status: number;
  code: string | null;
  quotaUsed: string | null;
  rateRemaining: string | null;
  retryAfter: string | null;
}

/** Fire `count` chat requests at once, spread round-robin over the routers, and collect what each got back. */
export async function burst(baseURLs: readonly string[], key: string, count: number): Promise<BurstOutcome[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await postChat(baseURLs[i % baseURLs.length]!, key);
      const body = (await response.json()) as { error?: { code: string } };
      return {
        status: response.status,
        code: body.error?.code ?? null,
        quotaUsed: response.headers.get('x-quota-used'),
        rateRemaining: response.headers.get('x-ratelimit-remaining'),
        retryAfter: response.headers.get('retry-after'),
      };
    }),
  );
}

/** How many outcomes carry each status/code pair, e.g. { '200': 15, '429 monthly_quota_exceeded': 25 }. */
export function tally(outcomes: readonly BurstOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of outcomes) {
    const label = code === null ? String(status) : `${status} ${code}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** The sorted numeric values of one header over the admitted requests. */
export function admittedValues(outcomes: readonly BurstOutcome[], pick: (outcome: BurstOutcome) => string | null): number[] {
  return outcomes
    .filter((outcome) => outcome.status === 200)
    .map((outcome) => Number(pick(outcome)))
    .sort((a, b) => a - b);
}
