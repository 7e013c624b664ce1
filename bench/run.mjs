/**
 * `npm run bench`: the router against two baselines measured in the same run, on 127.0.0.1 only.
 *   direct  — the fake upstream itself (20 ms fixed latency)
 *   proxy   — a bare Node pass-through proxy in front of it (the floor any Node gateway pays)
 *   router  — `node bin/router serve` in front of it (SQLite, memory rate limiter)
 * Each is its own process, so CPU and RSS are read per process from /proc. Prints the report and
 * writes it to bench/results/latest.md (and the raw figures to latest.json). Exits 0 when the run
 * completed, whatever the goals say; non-zero only when it could not run. Child processes, temp files,
 * the PostgreSQL schema and Redis keys are removed in every case. See bench/README.md.
 *
 * Env: BENCH_DURATION_S (5), BENCH_ROUNDS (5), BENCH_WARMUP_S (2), BENCH_PRIME_S (3), BENCH_STREAM_REQUESTS (200),
 *      BENCH_LATENCY_MS (20), ROUTER_BENCH_POSTGRES_URL, ROUTER_BENCH_REDIS_URL.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { measureStreamTtfb } from './measure-stream-ttfb.mjs';
import { openSharedStores } from './open-shared-stores.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { renderReport } from './render-report.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = dirname(benchDir);
const settings = {
  // Measured seconds per target and cell, split into interleaved rounds (see run-load-cells.mjs).
  durationS: Number(process.env.BENCH_DURATION_S ?? 5),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  // Load every process gets once before the first measurement, so no cell measures code the JIT has not compiled yet.
  primeS: Number(process.env.BENCH_PRIME_S ?? 3),
  streamRequests: Number(process.env.BENCH_STREAM_REQUESTS ?? 200),
  latencyMs: Number(process.env.BENCH_LATENCY_MS ?? 20),
  concurrency: [1, 16, 128],
  sharedConnections: 16,
};
// A hard bound on the whole run: a hung component must not keep the benchmark (or CI) waiting.
const TIME_LIMIT_MS = 280_000;

const cleanups = [];
async function cleanUp() {
  while (cleanups.length > 0) await cleanups.pop()().catch((error) => console.error(`cleanup: ${error.message}`));
}

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-bench-'));
  cleanups.push(async () => rmSync(workDir, { recursive: true, force: true }));
  const start = async (name, script, env) => {
    const component = await spawnComponent({ name, args: [join(benchDir, script)], env: { ...process.env, ...env }, logPath: join(workDir, `${name}.log`) });
    cleanups.push(component.stop);
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
  const stream = await measureStreamTtfb(streamTargets, { requests: settings.streamRequests, warmup: 20 });
  log(`stream TTFB p50: direct ${stream.direct.p50.toFixed(2)} ms, proxy ${stream.proxy.p50.toFixed(2)} ms, router ${stream.router.p50.toFixed(2)} ms`);
  const peakRssMb = readProcStats(router.component.pid).peakRssMb;
  await router.component.stop();

  const shared = await measureSharedStores(workDir, upstreamOrigin, upstream.pid);

  const results = {
    meta: { date: new Date().toISOString(), node: process.versions.node, cpus: availableParallelism(), ...settings },
    concurrency: settings.concurrency,
    cells,
    stream,
    peakRssMb,
    shared,
  };
  const report = renderReport(results);
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'latest.md'), `${report}\n`);
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${report}\n\nwritten to bench/results/latest.md\n`);
}

async function startRouter(workDir, name, upstreamOrigin, storage, redisUrl) {
  const router = await startRouterUnderTest({ repoDir, workDir, name, upstreamBaseUrl: `${upstreamOrigin}/v1`, storage, redisUrl });
  cleanups.push(router.component.stop);
  return router;
}

async function prime(targets) {
  if (settings.primeS > 0) await runLoadCells(targets, { connections: settings.sharedConnections, warmupS: 0, rounds: 1, sliceS: settings.primeS });
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
      },
    ]),
  );
}

/**
 * The router at one concurrency with each combination of store (SQLite or PostgreSQL) and limiter
 * (memory or Redis): four fresh routers running side by side, primed alike and measured interleaved,
 * so the rows differ in their stores only.
 */
async function measureSharedStores(workDir, upstreamOrigin, upstreamPid) {
  const connections = settings.sharedConnections;
  const stores = await openSharedStores();
  if ('skipped' in stores) {
    log(`shared-limits stage skipped: ${stores.skipped}`);
    return { connections, skipped: stores.skipped };
  }
  const accountIds = [];
  cleanups.push(() => stores.cleanup(accountIds));
  const variants = [
    { label: 'sqlite+memory', storage: `sqlite:${join(workDir, 'router-memory.db')}` },
    { label: 'postgres+memory', storage: stores.storage },
    { label: 'sqlite+redis', storage: `sqlite:${join(workDir, 'router-redis.db')}`, redisUrl: stores.redisUrl },
    { label: 'postgres+redis', storage: stores.storage, redisUrl: stores.redisUrl },
  ];
  const targets = [];
  for (const variant of variants) {
    const router = await startRouter(workDir, `router-${variant.label.replace('+', '-')}`, upstreamOrigin, variant.storage, variant.redisUrl);
    accountIds.push(router.accountId);
    const target = { ...benchTargets({ upstreamOrigin, proxyOrigin: upstreamOrigin, router }).router, label: variant.label, watch: { gateway: router.component.pid, upstream: upstreamPid } };
    await checkTarget(target);
    targets.push({ ...target, stop: router.component.stop });
  }
  await prime(targets);
  const cells = await measureCells(targets, connections);
  const measured = targets.map(({ label }) => ({ label, cell: cells[label] }));
  for (const { label, cell } of measured) log(`router c=${connections} ${label.padEnd(15)} ${describeCell(cell)}`);
  for (const target of targets) await target.stop();
  return { connections, variants: measured };
}

function describeCell(cell) {
  return `${cell.rps.toFixed(0).padStart(5)} req/s  p50 ${cell.p50.toFixed(2)} ms  p99 ${cell.p99.toFixed(2)} ms  CPU ${cell.gatewayCpuMs.toFixed(3)} ms/req  failed ${cell.failures}`;
}

function log(line) {
  process.stderr.write(`${line}\n`);
}

const watchdog = setTimeout(() => {
  console.error(`bench: no result within ${TIME_LIMIT_MS / 1000} s; stopping`);
  void cleanUp().finally(() => process.exit(2));
}, TIME_LIMIT_MS);
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    interrupted = true;
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  // Once interrupted, components are being stopped under the running stage: its errors are expected.
  if (!interrupted) console.error(`bench could not run: ${error.stack ?? error.message}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
  clearTimeout(watchdog);
}
