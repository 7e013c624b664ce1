/**
 * The router as the benchmark runs it: the shipped config/ copied to a temp directory with every
 * provider pointed at the fake upstream (so nothing can leave the machine), router/frontier routed to
 * one provider alone (openai unless `provider` says anthropic or gemini, whose adapters translate every
 * request and stream chunk), and plan limits so high they never reject. A max-plan account with its own
 * (BYOK) key for that provider is created with the real CLI, then `node bin/router serve --json` is started.
 * `rateLimit` settings (keyPrefix, quotaGate) are written into the copy of server.yaml, so the CLI
 * calls and the server read the same ones.
 * The server secret, router key and provider key are generated here and never printed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { spawnComponent } from './spawn-component.mjs';

const run = promisify(execFile);
/**
 * Every plan gets these, far above anything one router is sent in a run (a few thousand requests), so no
 * request is ever rejected. The Redis quota gate reserves blocks of min(100, limit / 100) = 100 units.
 */
/** The bench's router/fusion: panel models and the judge model (fake-upstream.mjs answers it with analysis JSON). */
export const FUSION_PANEL_MODELS = ['gpt-4.1', 'gpt-5', 'bench-panel'];
export const FUSION_JUDGE_MODEL = 'bench-judge';

export const BENCH_PLAN_LIMITS = { monthlyRequests: 1_000_000_000, requestsPerMinute: 100_000_000 };
/** The upstream model router/frontier is sent to, per provider (names the shipped prices know). */
const FRONTIER_MODEL = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-pro' };

/**
 * @param {{ repoDir: string, workDir: string, name: string, upstreamBaseUrl: string, storage: string,
 *   redisUrl?: string, rateLimit?: Record<string, unknown>, ledger?: Record<string, unknown>, server?: Record<string, Record<string, unknown>>, nodeFlags?: string[], serveArgs?: string[],
 *   workers?: number, provider?: 'openai' | 'anthropic' | 'gemini' }} options
 *   rateLimit: merged into server.yaml's rateLimit section (e.g. { keyPrefix, quotaGate })
 *   ledger: merged into server.yaml's ledger section (e.g. { enabled: false })
 *   server: any server.yaml sections, each merged into its section (e.g. { metrics: { enabled: false } })
 *   serveArgs: what to run instead of `bin/router serve --json` (a script printing the same line)
 *   workers: listen.workers (ROUTER_WORKERS); more than 1 is cluster mode, whose primary is `component.pid`
 *   provider: the one provider router/frontier goes to (default openai)
 *   extraEnv: variables for this router only (e.g. OTEL_EXPORTER_OTLP_ENDPOINT to measure tracing on)
 * @returns {Promise<{ url: string, apiKey: string, accountId: string, component: Awaited<ReturnType<typeof spawnComponent>> }>}
 */
export async function startRouterUnderTest({ repoDir, workDir, name, upstreamBaseUrl, storage, redisUrl, rateLimit, ledger, server = {}, nodeFlags, serveArgs, workers = 1, provider = 'openai', extraEnv = {} }) {
  const configDir = join(workDir, `${name}-config`);
  writeBenchConfig(join(repoDir, 'config'), configDir, upstreamBaseUrl, provider, { ...server, ...(rateLimit ? { rateLimit } : {}), ...(ledger ? { ledger } : {}) });
  const env = {
    ...process.env,
    ROUTER_CONFIG: configDir,
    ROUTER_STORAGE: storage,
    ROUTER_SECRET_KEY: randomBytes(32).toString('hex'),
    ROUTER_HOST: '127.0.0.1',
    ROUTER_PORT: '0',
    ROUTER_REDIS_URL: redisUrl ?? '',
    ROUTER_WORKERS: String(workers),
    ...extraEnv,
  };
  const cli = async (args, input) => {
    const child = run(process.execPath, [join(repoDir, 'bin/router'), ...args, '--json'], { env, cwd: workDir });
    if (input !== undefined) child.child.stdin.end(input);
    return JSON.parse((await child).stdout);
  };
  const { account } = await cli(['accounts', 'create', '--email', 'bench@example.com', '--plan', 'max']);
  const { key: apiKey } = await cli(['keys', 'create', '--account', account.id, '--name', 'bench']);
  await cli(['provider-keys', 'set', '--account', account.id, '--provider', provider, '--key-stdin'], `sk-bench-${randomBytes(16).toString('hex')}`);

  const component = await spawnComponent({
    name,
    args: serveArgs ?? [join(repoDir, 'bin/router'), 'serve', '--json'],
    env,
    cwd: workDir,
    logPath: join(workDir, `${name}.log`),
    nodeFlags,
  });
  return { url: component.ready.listening, apiKey, accountId: account.id, component, cli };
}

function writeBenchConfig(sourceDir, configDir, upstreamBaseUrl, provider, server) {
  mkdirSync(configDir, { recursive: true });
  for (const file of readdirSync(sourceDir).filter((f) => f.endsWith('.yaml'))) copyFileSync(join(sourceDir, file), join(configDir, file));
  rewrite(join(configDir, 'providers.yaml'), (doc) => {
    for (const entry of doc.providers) entry.baseUrl = upstreamBaseUrl;
    doc.managedAccess = { enabled: false };
  });
  rewrite(join(configDir, 'routes.yaml'), (doc) => {
    const frontier = doc.routes.find((route) => route.id === 'router/frontier');
    frontier.tiers = [[{ provider, model: FRONTIER_MODEL[provider] }]];
    // router/fusion over the one fake: three panel models, a judge model the fake answers with valid analysis JSON, a writer.
    const fusion = doc.routes.find((route) => route.id === 'router/fusion');
    fusion.tiers = [[{ provider: 'openai', model: 'gpt-4.1' }]];
    fusion.fusion = {
      ...fusion.fusion,
      minAnswers: 1,
      panel: FUSION_PANEL_MODELS.map((model) => ({ tiers: [[{ provider: 'openai', model }]] })),
      judge: { tiers: [[{ provider: 'openai', model: FUSION_JUDGE_MODEL }]] },
    };
  });
  rewrite(join(configDir, 'plans.yaml'), (doc) => {
    for (const plan of doc.plans) Object.assign(plan, BENCH_PLAN_LIMITS);
  });
  rewrite(join(configDir, 'server.yaml'), (doc) => {
    for (const [section, settings] of Object.entries(server)) if (settings) doc[section] = { ...doc[section], ...settings };
  });
}

function rewrite(path, change) {
  const doc = parse(readFileSync(path, 'utf8'));
  change(doc);
  writeFileSync(path, stringify(doc));
}
