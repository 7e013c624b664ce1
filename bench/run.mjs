/**
 * `npm run bench`: the router against two baselines measured in the same run, on 127.0.0.1 only.
 *   direct  — the fake upstream itself (20 ms fixed latency)
 *   proxy   — a bare Node pass-through proxy in front of it (the floor any Node gateway pays)
 *   router  — `node bin/router serve` in front of it (SQLite, memory rate limiter)
 * Each is its own process, so CPU and RSS are read per process from /proc. Later stages compare routers
 * with each other: quota and rate-limit stores (stage 5), the usage ledger on vs off (stage 6), and the
 * Anthropic and Gemini adapters against the bare proxy (stage 7); then issue 35's cells: /v1/responses (stage 8),
 * throughput with an instant mock (stage 9) and bytes allocated per request (stage 10); an optional soak (BENCH_SOAK_S). Prints the report and
 * writes it to bench/results/latest.md (and the raw figures to latest.json). Exits 0 when the run
 * completed, whatever the goals say; non-zero only when it could not run. Child processes, temp files,
 * the PostgreSQL schema and Redis keys are removed in every case. See bench/README.md.
 *
 * Env: BENCH_DURATION_S (5), BENCH_ROUNDS (5), BENCH_WARMUP_S (2), BENCH_PRIME_S (3), BENCH_STREAM_REQUESTS (200),
 *      BENCH_LATENCY_MS (20), BENCH_SOAK_S (0: off; 300 for the 5-minute soak), ROUTER_BENCH_POSTGRES_URL, ROUTER_BENCH_REDIS_URL,
 *      BENCH_ROUTER_DIR (the router from another checkout with dist/ built, measured by this checkout's bench:
 *      a "before" taken on the same day as the "after", since figures from different days do not compare),
 *      BENCH_SKIP_STORES=1 (no stage 5: for a build from before the embedded SQLite quota gate, whose backends it checks).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { measureAdapters } from './measure-adapters.mjs';
import { measureLedger } from './measure-ledger.mjs';
import { measureStreamTtfb, measureStreamTtfbUnderLoad } from './measure-stream-ttfb.mjs';
import { measureFusion } from './measure-fusion.mjs';
import { measureAllocations } from './measure-allocations.mjs';
import { measureInstantThroughput } from './measure-instant-throughput.mjs';
import { measureResponses } from './measure-responses.mjs';
import { openSharedStores } from './open-shared-stores.mjs';
import { startMachineCpuWatch } from './read-machine-cpu.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { sampleServerCpu, visibleServers } from './read-server-cpu.mjs';
import { renderReport } from './render-report.mjs';
import { boundedRun } from './run-bounded.mjs';
import { commitOf, routerCheckout } from './router-checkout.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { BENCH_PLAN_LIMITS, startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = routerCheckout();
const settings = {
  // Measured seconds per target and cell, split into interleaved rounds (see run-load-cells.mjs).
  durationS: Number(process.env.BENCH_DURATION_S ?? 5),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  // Load every process gets once before the first measurement, so no cell measures code the JIT has not compiled yet.
  primeS: Number(process.env.BENCH_PRIME_S ?? 3),
  streamRequests: Number(process.env.BENCH_STREAM_REQUESTS ?? 200),
  fusionRequests: Number(process.env.BENCH_FUSION_REQUESTS ?? 100),
  latencyMs: Number(process.env.BENCH_LATENCY_MS ?? 20),
  concurrency: [1, 16, 128],
  // Stream load (CPU per request of whole streams) and stream TTFB under load.
  streamConcurrency: [16, 128],
  ttfbLoadConcurrency: 64,
  sharedConnections: 16,
  // The soak: the router at 64 connections for this long, its RSS read at the start and the end (0: off).
  soakS: Number(process.env.BENCH_SOAK_S ?? 0),
  soakConnections: 64,
};
// A hard bound on the whole run: a hung component must not keep the benchmark (or CI) waiting.
const TIME_LIMIT_MS = 900_000 + settings.soakS * 1000;

const bench = boundedRun('bench', TIME_LIMIT_MS);



async function main() {
  const machine = startMachineCpuWatch();
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-bench-'));
  bench.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  const start = async (name, script, env) => {
    const component = await spawnComponent({ name, args: [join(benchDir, script)], env: { ...process.env, ...env }, logPath: join(workDir, `${name}.log`) });
    bench.onCleanup(component.stop);
    return component;
  };

  const upstream = await start('fake-upstream', 'fake-upstream.mjs', { BENCH_LATENCY_MS: String(settings.latencyMs) });
  const upstreamOrigin = `http://127.0.0.1:${upstream.ready.port}`;
  const proxy = await start('bare-proxy', 'bare-proxy.mjs', { BENCH_PROXY_TARGET: upstreamOrigin });
  const router = await startRouter(workDir, 'router', upstreamOrigin, `sqlite:${join(workDir, 'router.db')}`);
  const endpoints = benchTargets({ upstreamOrigin, proxyOrigin: `http://127.0.0.1:${proxy.ready.port}`, router });
  const pids = { direct: upstream.pid, proxy: proxy.pid, router: router.component.pid };
  const targets = ['direct', 'proxy', 'router'].map((label) => ({ ...endpoints[label], label, watch: { gateway: pids[label], upstream: upstream.pid } }));
  for (const target of targets) await checkTarget(target);
  await prime(targets);

  const cells = {};
  for (const connections of settings.concurrency) {
    cells[connections] = await measureCells(targets, connections);
    for (const target of targets) log(`${target.label.padEnd(6)} c=${String(connections).padEnd(3)} ${describeCell(cells[connections][target.label])}`);
  }

  const streamTargets = targets.map((target) => ({ ...target, body: target.streamBody }));
  // The stream path (SSE decoding, translation, SSE writing) is other code than the JSON path: prime it too.
  await prime(streamTargets);
  const streamCells = {};
  for (const connections of settings.streamConcurrency) {
    streamCells[connections] = await measureCells(streamTargets, connections);
    for (const target of targets) log(`${target.label.padEnd(6)} stream c=${String(connections).padEnd(3)} ${describeCell(streamCells[connections][target.label])}`);
  }
  const stream = await measureStreamTtfb(streamTargets, { requests: settings.streamRequests, warmup: 20 });
  log(`stream TTFB p50: direct ${stream.direct.p50.toFixed(2)} ms, proxy ${stream.proxy.p50.toFixed(2)} ms, router ${stream.router.p50.toFixed(2)} ms`);
  const fusion = await measureFusion({ routerUrl: router.url, apiKey: router.apiKey, upstreamOrigin, requests: settings.fusionRequests, warmup: 60, routerPid: router.component.pid });
  log(`router/fusion overhead p50 at c=1: ${fusion.overheadP50Ms.toFixed(2)} ms (wall ${fusion.router.p50.toFixed(2)} ms, critical path ${fusion.direct.p50.toFixed(2)} ms)`);
  const streamUnderLoad = await measureStreamTtfbUnderLoad(streamTargets, { concurrency: settings.ttfbLoadConcurrency, rounds: 5, perClient: 4 });
  log(`stream TTFB p50 at c=${settings.ttfbLoadConcurrency}: direct ${streamUnderLoad.direct.p50.toFixed(2)} ms, proxy ${streamUnderLoad.proxy.p50.toFixed(2)} ms, router ${streamUnderLoad.router.p50.toFixed(2)} ms`);
  // After every load the router of stages 1–3 gets: chat and streams up to 128 connections.
  const peakRssMb = readProcStats(router.component.pid).peakRssMb;
  const soak = settings.soakS > 0 ? await runSoak(targets.find((target) => target.label === 'router'), router.component.pid) : undefined;
  const responses = await measureResponses({ upstreamOrigin, proxy: targets.find((target) => target.label === 'proxy'), router, routerPid: router.component.pid, upstreamPid: upstream.pid, prime, measureCells });
  for (const connections of responses.connections) {
    for (const [label, cell] of Object.entries(responses.cells[connections])) log(`${label.padEnd(6)} responses c=${String(connections).padEnd(3)} ${describeCell(cell)}`);
  }
  await router.component.stop();

  const shared = await measureSharedStores(workDir, upstreamOrigin, upstream.pid);
  const ledger = await measureLedger({
    startRouter: (name, ledgerSettings) => startRouter(workDir, name, upstreamOrigin, `sqlite:${join(workDir, `${name}.db`)}`, undefined, undefined, ledgerSettings),
    upstreamOrigin,
    upstreamPid: upstream.pid,
    direct: targets.find((target) => target.label === 'direct'),
    prime,
    measureCells,
    log,
  });
  const adapters = await measureAdapters({
    startRouter: (name, provider) => startRouter(workDir, name, upstreamOrigin, `sqlite:${join(workDir, `${name}.db`)}`, undefined, undefined, undefined, provider),
    upstreamOrigin,
    upstreamPid: upstream.pid,
    proxy: targets.find((target) => target.label === 'proxy'),
    prime,
    measureCells,
    log,
  });
  const instant = await measureInstantThroughput({
    start,
    startRouter: (name, origin) => startRouter(workDir, name, origin, `sqlite:${join(workDir, `${name}.db`)}`),
    prime,
    measureCells,
  });
  for (const [label, cell] of Object.entries(instant.cells)) log(`${label.padEnd(6)} instant c=${instant.connections} ${describeCell(cell)}`);
  log('allocation: bytes per request, proxy and router, chat and streams (about a minute)');
  const allocations = await measureAllocations({ routerDir: repoDir, workDir, onCleanup: (stop) => bench.onCleanup(stop) });
  const otherLoad = machine.finish([upstream.pid, proxy.pid]);
  log(`CPU used by other processes meanwhile: ${otherLoad.othersCpuS.toFixed(1)} s of ${otherLoad.busyCpuS.toFixed(0)} s busy in ${otherLoad.wallS.toFixed(0)} s (${otherLoad.othersCores.toFixed(2)} cores on average)`);

  const results = {
    meta: { date: new Date().toISOString(), node: process.versions.node, cpus: availableParallelism(), router: `${repoDir} at ${commitOf(repoDir)}`, otherLoad, ...settings },
    concurrency: settings.concurrency,
    cells,
    streamConcurrency: settings.streamConcurrency,
    streamCells,
    stream,
    fusion,
    streamUnderLoad: { connections: settings.ttfbLoadConcurrency, ...streamUnderLoad },
    peakRssMb,
    soak,
    shared,
    ledger,
    adapters,
    responses,
    instant,
    allocations,
  };
  const report = renderReport(results);
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'latest.md'), `${report}\n`);
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${report}\n\nwritten to bench/results/latest.md\n`);
}

async function startRouter(workDir, name, upstreamOrigin, storage, redisUrl, rateLimit, ledger, provider) {
  const router = await startRouterUnderTest({ repoDir, workDir, name, upstreamBaseUrl: `${upstreamOrigin}/v1`, storage, redisUrl, rateLimit, ledger, provider });
  bench.onCleanup(router.component.stop);
  return router;
}

/** @returns what each target was sent (label → { sent, ok }), for the stores stage's quota check */
async function prime(targets) {
  if (settings.primeS <= 0) return {};
  return runLoadCells(targets, { connections: settings.sharedConnections, warmupS: 0, rounds: 1, sliceS: settings.primeS });
}

/**
 * The soak: the router alone at 64 connections for BENCH_SOAK_S seconds in ten slices, its resident set
 * (VmRSS) read before the first and after each slice, so growth (a leak, an unbounded cache) shows as a
 * rising series rather than one peak.
 */
async function runSoak(target, pid) {
  const slices = 10;
  const rssMb = [readProcStats(pid).rssMb];
  let requests = 0;
  let failures = 0;
  for (let i = 0; i < slices; i++) {
    const cell = (await runLoadCells([target], { connections: settings.soakConnections, warmupS: 0, rounds: 1, sliceS: settings.soakS / slices }))[target.label];
    requests += cell.requests;
    failures += cell.failures;
    rssMb.push(readProcStats(pid).rssMb);
    log(`soak ${i + 1}/${slices}: RSS ${rssMb.at(-1).toFixed(1)} MB`);
  }
  return { seconds: settings.soakS, connections: settings.soakConnections, requests, failures, rssMb, peakRssMb: readProcStats(pid).peakRssMb };
}

/** One concurrency level for every target, interleaved; figures keyed by target label. */
async function measureCells(targets, connections) {
  const measured = await runLoadCells(targets, { connections, warmupS: settings.warmupS, rounds: settings.rounds, sliceS: settings.durationS / settings.rounds });
  return Object.fromEntries(
    Object.entries(measured).map(([label, result]) => [
      label,
      {
        rps: result.rps,
        p50: result.p50,
        p99: result.p99,
        requests: result.requests,
        failures: result.failures,
        gatewayCpuMs: result.cpuMsPerRequest.gateway,
        upstreamCpuMs: result.cpuMsPerRequest.upstream,
        ...('servers' in result.cpuMsPerRequest ? { serversCpuMs: result.cpuMsPerRequest.servers } : {}),
        sent: result.sent,
        ok: result.ok,
      },
    ]),
  );
}

/**
 * The router at one concurrency with each combination of store (SQLite or PostgreSQL) and limiter
 * (memory or Redis), and SQLite + memory and PostgreSQL + Redis once more with their quota gate switched
 * off: six fresh routers running side by side, primed alike and measured interleaved, so the rows differ in
 * their stores only. `quota` is where the monthly quota is admitted, checked on /readyz before and
 * after the load: `store` (one conditional upsert per request), `redis-gate` (one Redis script per
 * request, the store touched once per block of reserved units and once per settle interval) or
 * `sqlite-gate` (in the router's memory, SQLite touched as often as by the Redis gate).
 */
const SHARED_VARIANTS = [
  { label: 'sqlite+memory', store: 'sqlite', limiter: 'memory', quota: 'sqlite-gate' },
  { label: 'sqlite+memory no-gate', store: 'sqlite', limiter: 'memory', quota: 'store', rateLimit: { quotaGate: false } },
  { label: 'postgres+memory', store: 'postgres', limiter: 'memory', quota: 'store' },
  { label: 'sqlite+redis', store: 'sqlite', limiter: 'redis', quota: 'redis-gate' },
  { label: 'postgres+redis', store: 'postgres', limiter: 'redis', quota: 'redis-gate' },
  { label: 'postgres+redis no-gate', store: 'postgres', limiter: 'redis', quota: 'store', rateLimit: { quotaGate: false } },
];

async function measureSharedStores(workDir, upstreamOrigin, upstreamPid) {
  const connections = settings.sharedConnections;
  if (process.env.BENCH_SKIP_STORES === '1') {
    // A build from before the embedded SQLite gate cannot show the backends these cells check for.
    log('shared-limits stage skipped: BENCH_SKIP_STORES=1');
    return { connections, skipped: 'BENCH_SKIP_STORES=1' };
  }
  const stores = await openSharedStores();
  if ('skipped' in stores) {
    log(`shared-limits stage skipped: ${stores.skipped}`);
    return { connections, skipped: stores.skipped };
  }
  bench.onCleanup(() => stores.cleanup());
  // The servers' CPU is read only when both run here; otherwise the column says n/a.
  const servers = visibleServers();
  const watchServers = stores.onLoopback && servers.has('postgres') && servers.has('redis-server');
  const targets = [];
  for (const variant of SHARED_VARIANTS) {
    const name = `router-${variant.label.replace(/[^a-z0-9]+/g, '-')}`;
    const storage = variant.store === 'postgres' ? stores.storage : `sqlite:${join(workDir, `${name}.db`)}`;
    const redisUrl = variant.limiter === 'redis' ? stores.redisUrl : undefined;
    // The run's own key prefix for every router, so cleanup can find all their keys (windows and gate).
    const router = await startRouter(workDir, name, upstreamOrigin, storage, redisUrl, { keyPrefix: stores.keyPrefix, ...variant.rateLimit });
    const target = {
      ...benchTargets({ upstreamOrigin, proxyOrigin: upstreamOrigin, router }).router,
      label: variant.label,
      watch: { gateway: router.component.pid, upstream: upstreamPid, ...(watchServers ? { servers: sampleServerCpu } : {}) },
    };
    await expectBackends(router.url, variant);
    await checkTarget(target);
    targets.push({ ...target, variant, router });
  }
  const primed = await prime(targets);
  const cells = await measureCells(targets, connections);
  const measured = [];
  for (const { label, variant, router } of targets) {
    const cell = cells[label];
    // checkTarget's request, then priming, then the cell (warm-up included).
    const sent = 1 + (primed[label]?.sent ?? 0) + cell.sent;
    const ok = 1 + (primed[label]?.ok ?? 0) + cell.ok;
    await expectBackends(router.url, variant);
    measured.push({ label, store: variant.store, limiter: variant.limiter, quota: variant.quota, cell, quotaCount: await checkQuotaCount(router, label, { sent, ok }) });
    log(`router c=${connections} ${label.padEnd(22)} ${describeCell(cell)}`);
  }
  for (const { router } of targets) await router.component.stop();
  // Stopped routers have settled what they admitted: the report shows the store's count next to the one they reported.
  const rows = await stores.readQuotaRows(targets.filter((t) => t.variant.store === 'postgres').map((t) => t.router.accountId));
  for (const [index, { router }] of targets.entries()) {
    const row = rows.get(router.accountId);
    if (row) measured[index].quotaCount.storeAfterStop = row;
  }
  return { connections, watchServers, planLimits: BENCH_PLAN_LIMITS, variants: measured };
}

/** /readyz must name the store, limiter and quota path the row is meant to measure (no silent fallback). */
async function expectBackends(url, variant) {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
  const text = await response.text();
  let ready;
  try {
    ready = JSON.parse(text);
  } catch {
    ready = undefined;
  }
  if (response.status !== 200 || ready?.store !== variant.store || ready?.rateLimiter?.backend !== variant.limiter || ready?.quota?.backend !== variant.quota) {
    throw new Error(`${variant.label}: /readyz should say store ${variant.store}, rate limit ${variant.limiter}, quota ${variant.quota}; got HTTP ${response.status} ${text.slice(0, 300)}`);
  }
}

/**
 * The router's own monthly count after the load, from X-Quota-Used on GET /v1/models (read without
 * counting): it must lie between the 2xx responses the load saw and the requests it sent (a request cut
 * off at the end of a slice may have been counted), and the plan's limits must be above what was sent,
 * or the rows would have measured rejections.
 */
async function checkQuotaCount(router, label, { sent, ok }) {
  const { monthlyRequests, requestsPerMinute } = BENCH_PLAN_LIMITS;
  if (sent >= Math.min(monthlyRequests, requestsPerMinute)) {
    throw new Error(`${label}: ${sent} requests sent, not below the bench plan limits (${monthlyRequests}/month, ${requestsPerMinute}/min): raise BENCH_PLAN_LIMITS`);
  }
  const response = await fetch(`${router.url}/v1/models`, {
    headers: { authorization: `Bearer ${router.apiKey}`, 'user-agent': 'llm-router-bench/1.0 (+bench/README.md)' },
    signal: AbortSignal.timeout(5000),
  });
  await response.arrayBuffer();
  const used = Number(response.headers.get('x-quota-used'));
  const limit = Number(response.headers.get('x-quota-limit'));
  if (response.status !== 200 || !(used >= ok && used <= sent) || limit !== monthlyRequests) {
    throw new Error(`${label}: GET /v1/models answered HTTP ${response.status}, X-Quota-Used ${response.headers.get('x-quota-used')} (expected ${ok}–${sent}), X-Quota-Limit ${response.headers.get('x-quota-limit')} (expected ${monthlyRequests})`);
  }
  return { sent, ok, used };
}

function describeCell(cell) {
  return `${cell.rps.toFixed(0).padStart(5)} req/s  p50 ${cell.p50.toFixed(2)} ms  p99 ${cell.p99.toFixed(2)} ms  CPU ${cell.gatewayCpuMs.toFixed(3)} ms/req  failed ${cell.failures}`;
}

function log(line) {
  process.stderr.write(`${line}\n`);
}

await bench.run(main);
