/**
 * `npm run bench:cluster`: the router with listen.workers 1 and 2 at c=128, in one run, on 127.0.0.1
 * only. Both routers run side by side (SQLite, the default memory windows, which with 2 workers are
 * decided in the primary) in front of the same fake upstream, primed alike and measured interleaved
 * (run-load-cells.mjs), so the rows differ in their worker count only. Reported per row: requests/s,
 * p50/p99, CPU per request of the router's whole process tree (primary + workers) and of the fake
 * upstream, and the machine's busy cores. On a machine with few cores the load generator and the fake
 * upstream compete with the workers for them: compare CPU per request, not only requests/s.
 * Writes bench/results/cluster-latest.md and .json.
 *
 * Env: BENCH_DURATION_S (10), BENCH_ROUNDS (5), BENCH_WARMUP_S (2), BENCH_PRIME_S (3), BENCH_LATENCY_MS (20),
 *      BENCH_CONNECTIONS (128).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { startMachineCpuWatch } from './read-machine-cpu.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { processTree, processTreeCpu } from './read-process-tree-cpu.mjs';
import { boundedRun } from './run-bounded.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = dirname(benchDir);
const settings = {
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  primeS: Number(process.env.BENCH_PRIME_S ?? 3),
  latencyMs: Number(process.env.BENCH_LATENCY_MS ?? 20),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 128),
};
const WORKER_COUNTS = [1, 2];
const TIME_LIMIT_MS = 300_000;

const bench = boundedRun('bench', TIME_LIMIT_MS);

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-bench-cluster-'));
  bench.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  const upstream = await spawnComponent({
    name: 'fake-upstream',
    args: [join(benchDir, 'fake-upstream.mjs')],
    env: { ...process.env, BENCH_LATENCY_MS: String(settings.latencyMs) },
    logPath: join(workDir, 'fake-upstream.log'),
  });
  bench.onCleanup(upstream.stop);
  const upstreamOrigin = `http://127.0.0.1:${upstream.ready.port}`;

  const targets = [];
  for (const workers of WORKER_COUNTS) {
    const name = `router-workers-${workers}`;
    const router = await startRouterUnderTest({ repoDir, workDir, name, upstreamBaseUrl: `${upstreamOrigin}/v1`, storage: `sqlite:${join(workDir, `${name}.db`)}`, workers });
    bench.onCleanup(router.component.stop);
    const target = { ...benchTargets({ upstreamOrigin, proxyOrigin: upstreamOrigin, router }).router, label: `workers=${workers}`, workers, router };
    await checkTarget(target);
    targets.push({ ...target, watch: { gateway: processTreeCpu(router.component.pid), upstream: upstream.pid } });
  }
  log(`routers ready: ${targets.map((t) => `${t.label} (${processTree(t.router.component.pid).length} processes)`).join(', ')}`);
  if (settings.primeS > 0) await runLoadCells(targets, { connections: 16, warmupS: 0, rounds: 1, sliceS: settings.primeS });

  const machine = startMachineCpuWatch();
  const cell = await runLoadCells(targets, { connections: settings.connections, warmupS: settings.warmupS, rounds: settings.rounds, sliceS: settings.durationS / settings.rounds });
  const load = machine.finish([upstream.pid, ...targets.flatMap((t) => processTree(t.router.component.pid))]);
  const rows = targets.map(({ label, workers, router }) => {
    const measured = cell[label];
    const peakRssMb = processTree(router.component.pid).reduce((sum, pid) => sum + readProcStats(pid).peakRssMb, 0);
    return {
      label,
      workers,
      rps: measured.rps,
      p50: measured.p50,
      p99: measured.p99,
      failures: measured.failures,
      gatewayCpuUs: measured.cpuMsPerRequest.gateway * 1000,
      upstreamCpuUs: measured.cpuMsPerRequest.upstream * 1000,
      peakRssMb,
    };
  });
  const results = { meta: { date: new Date().toISOString(), node: process.versions.node, cpus: availableParallelism(), machineLoad: load, ...settings }, rows };
  const report = render(results);
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'cluster-latest.md'), `${report}\n`);
  writeFileSync(join(resultsDir, 'cluster-latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n${report}\n\nwritten to bench/results/cluster-latest.md\n`);
}

function render({ meta, rows }) {
  const [one] = rows;
  const lines = [
    `# Cluster mode: listen.workers 1 vs 2 at c=${meta.connections} (${meta.date}, Node ${meta.node}, ${meta.cpus} cores)`,
    '',
    `Chat requests, fake upstream with ${meta.latencyMs} ms latency, ${meta.durationS} s per row in ${meta.rounds} interleaved rounds. CPU is the router's whole process tree (primary + workers).`,
    '',
    '| workers | rps | rps × workers=1 | p50 ms | p99 ms | router CPU µs/request | upstream CPU µs/request | peak RSS MB (sum) | failed |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.workers} | ${row.rps.toFixed(0)} | ${(row.rps / one.rps).toFixed(2)} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.gatewayCpuUs.toFixed(0)} | ${row.upstreamCpuUs.toFixed(0)} | ${row.peakRssMb.toFixed(0)} | ${row.failures} |`,
    ),
    '',
    `Machine meanwhile: ${meta.machineLoad.busyCpuS.toFixed(0)} CPU-s busy in ${meta.machineLoad.wallS.toFixed(0)} s (${(meta.machineLoad.busyCpuS / meta.machineLoad.wallS).toFixed(2)} cores); processes outside the benchmark used ${meta.machineLoad.othersCpuS.toFixed(1)} CPU-s.`,
  ];
  return lines.join('\n');
}

function log(line) {
  process.stderr.write(`${line}\n`);
}

await bench.run(main);
