/**
 * `npm run build && node bench/compare-upstream-clients.mjs`: what the router's upstream client costs
 * against the alternatives. It settled the move from ofetch over Node's fetch to undici.request
 * (figures in bench/README.md) and can check the choice again, e.g. after a Node upgrade.
 *   1. The client alone (measure-upstream-client-calls.mjs): CPU per upstream call for each client.
 *   2. Inside the real router: `router serve` as built against the same router started with the
 *      earlier ofetch-over-fetch client injected (serve-with-fetch-client.mjs), with the fake upstream
 *      called directly as the baseline, at 1, 16 and 128 connections (interleaved, as in run.mjs),
 *      plus stream time to first byte and peak RSS.
 * Prints a markdown report and writes it to bench/results/upstream-clients.md.
 *
 * Env: BENCH_COMPARE_S (4: seconds per client and mode in part 1), BENCH_DURATION_S (5), BENCH_ROUNDS (5),
 *      BENCH_WARMUP_S (2), BENCH_PRIME_S (3), BENCH_STREAM_REQUESTS (100).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { measureStreamTtfb } from './measure-stream-ttfb.mjs';
import { measureUpstreamClientCalls } from './measure-upstream-client-calls.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { boundedRun } from './run-bounded.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const settings = {
  callS: Number(process.env.BENCH_COMPARE_S ?? 4),
  durationS: Number(process.env.BENCH_DURATION_S ?? 5),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  primeS: Number(process.env.BENCH_PRIME_S ?? 3),
  streamRequests: Number(process.env.BENCH_STREAM_REQUESTS ?? 100),
};
const CONCURRENCY = [1, 16, 128];
const TIME_LIMIT_MS = 280_000;
const log = (line) => process.stderr.write(`${line}\n`);
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

const workDir = mkdtempSync(join(tmpdir(), 'llm-router-compare-'));
const comparison = boundedRun('compare', TIME_LIMIT_MS);
comparison.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));

const SHIPPED = 'router (as built)';
const EARLIER = 'router (ofetch → fetch)';

async function startRouters(origin) {
  const common = { repoDir: dirname(benchDir), workDir, upstreamBaseUrl: `${origin}/v1` };
  const shipped = await startRouterUnderTest({ ...common, name: 'router-built', storage: `sqlite:${join(workDir, 'built.db')}` });
  comparison.onCleanup(shipped.component.stop);
  const earlier = await startRouterUnderTest({
    ...common,
    name: 'router-fetch',
    storage: `sqlite:${join(workDir, 'fetch.db')}`,
    serveArgs: [join(benchDir, 'serve-with-fetch-client.mjs')],
  });
  comparison.onCleanup(earlier.component.stop);
  return { shipped, earlier };
}

async function compareInRouter(origin) {
  const { shipped, earlier } = await startRouters(origin);
  const endpoint = (router) => benchTargets({ upstreamOrigin: origin, proxyOrigin: origin, router });
  const targets = [
    { ...endpoint(shipped).direct, label: 'direct' },
    { ...endpoint(shipped).router, label: SHIPPED, watch: { gateway: shipped.component.pid } },
    { ...endpoint(earlier).router, label: EARLIER, watch: { gateway: earlier.component.pid } },
  ];
  for (const target of targets) await checkTarget(target);
  await runLoadCells(targets, { connections: 16, warmupS: 0, rounds: 1, sliceS: settings.primeS });

  const rows = [];
  for (const connections of CONCURRENCY) {
    const cells = await runLoadCells(targets, { connections, warmupS: settings.warmupS, rounds: settings.rounds, sliceS: settings.durationS / settings.rounds });
    for (const { label } of targets) {
      const result = cells[label];
      rows.push({ label, connections, ...result, cpuMs: result.cpuMsPerRequest.gateway });
      log(`${label.padEnd(24)} c=${String(connections).padEnd(3)} ${result.rps.toFixed(0)} req/s p50 ${result.p50.toFixed(2)} ms CPU ${fixed(result.cpuMsPerRequest.gateway, 3)} ms/req`);
    }
  }
  const streamTargets = targets.map((target) => ({ ...target, body: target.streamBody }));
  await runLoadCells(streamTargets, { connections: 16, warmupS: 0, rounds: 1, sliceS: settings.primeS });
  const stream = await measureStreamTtfb(streamTargets, { requests: settings.streamRequests, warmup: 20 });
  const peakRssMb = { [SHIPPED]: readProcStats(shipped.component.pid).peakRssMb, [EARLIER]: readProcStats(earlier.component.pid).peakRssMb };
  return { rows, stream, peakRssMb };
}

function render(calls, inRouter) {
  const floor = (mode) => calls.find((row) => row.mode === mode && row.variant.startsWith('node:http')).cpuMsPerCall;
  const direct = (connections) => inRouter.rows.find((row) => row.label === 'direct' && row.connections === connections);
  return [
    '# Upstream client: the router as built against the earlier ofetch-over-fetch client',
    '',
    `## 1. The client alone (16 concurrent calls, ${settings.callS} s per client and mode, upstream latency 20 ms)`,
    '',
    '| client | mode | calls/s | p50 | p99 | client CPU ms/call | × node:http |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...calls.map((r) => `| ${r.variant} | ${r.mode} | ${r.rps.toFixed(0)} | ${fixed(r.p50)} ms | ${fixed(r.p99)} ms | ${fixed(r.cpuMsPerCall, 3)} | ${fixed(r.cpuMsPerCall / floor(r.mode))} |`),
    '',
    `## 2. Inside the router (non-stream chat completions, ${settings.warmupS} s warm-up + ${settings.durationS} s per cell, interleaved)`,
    '',
    '| router | connections | req/s | throughput / direct | p50 | added p50 vs direct | p99 | router CPU ms/req |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...inRouter.rows.map((r) => {
      const base = direct(r.connections);
      return `| ${r.label} | ${r.connections} | ${r.rps.toFixed(0)} | ${fixed(r.rps / base.rps)} | ${fixed(r.p50)} ms | ${fixed(r.p50 - base.p50)} ms | ${fixed(r.p99)} ms | ${r.label === 'direct' ? '—' : fixed(r.cpuMs, 3)} |`;
    }),
    '',
    `Stream time to first byte, one request at a time (${inRouter.stream.direct.count} each):`,
    '',
    '| target | TTFB p50 | added p50 vs direct |',
    '| --- | --- | --- |',
    ...Object.entries(inRouter.stream).map(([label, s]) => `| ${label} | ${fixed(s.p50)} ms | ${label === 'direct' ? '—' : `${fixed(s.p50 - inRouter.stream.direct.p50)} ms`} |`),
    '',
    `Peak RSS (VmHWM) after all of the above: ${Object.entries(inRouter.peakRssMb).map(([label, mb]) => `${label} ${fixed(mb, 1)} MB`).join(', ')}.`,
  ].join('\n');
}

await comparison.run(async () => {
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], logPath: join(workDir, 'upstream.log') });
  comparison.onCleanup(upstream.stop);
  const origin = `http://127.0.0.1:${upstream.ready.port}`;
  const calls = await measureUpstreamClientCalls(origin, { durationS: settings.callS, connections: 16, log });
  const inRouter = await compareInRouter(origin);
  const report = render(calls, inRouter);
  mkdirSync(join(benchDir, 'results'), { recursive: true });
  writeFileSync(join(benchDir, 'results', 'upstream-clients.md'), `${report}\n`);
  process.stdout.write(`${report}\n\nwritten to bench/results/upstream-clients.md\n`);
});
