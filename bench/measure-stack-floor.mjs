/**
 * `npm run build && node bench/measure-stack-floor.mjs`: what the card's parts cost by themselves.
 * Runs the bare proxy (as the main benchmark runs it, and its pipe-only variant), the smallest gateways
 * built from the router's parts (stack-floor-server.mjs: h3 and undici, each swapped for node:http) and
 * the router, side by side in front of one fake
 * upstream, and measures CPU per request interleaved (as the main benchmark does) for chat and streams
 * at 16 and 128 connections. If the parts alone cost about what the bare proxy costs, the router's
 * excess over the proxy is its own pipeline's work, not h3's or undici's.
 * Writes bench/results/stack-floor.md. Bounded: about 2 minutes, stopped after 300 s.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets } from './bench-targets.mjs';
import { boundedRun } from './run-bounded.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const STACKS = ['h3+undici', 'node:http+undici', 'h3+node:http'];
const CONNECTIONS = [16, 128];
const workDir = mkdtempSync(join(tmpdir(), 'llm-router-floor-'));
const floor = boundedRun('stack floor', 300_000);
floor.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));

await floor.run(async () => {
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], logPath: join(workDir, 'upstream.log') });
  floor.onCleanup(upstream.stop);
  const origin = `http://127.0.0.1:${upstream.ready.port}`;
  const gateways = {};
  // The bare proxy as the main benchmark runs it (parsing both ways), and the lighter one piping answers back.
  for (const [label, mode] of [['proxy', 'parse'], ['proxy (pipe)', 'pipe']]) {
    const env = { ...process.env, BENCH_PROXY_TARGET: origin, BENCH_PROXY_MODE: mode };
    gateways[label] = await spawnComponent({ name: label, args: [join(benchDir, 'bare-proxy.mjs')], env, logPath: join(workDir, 'proxy.log') });
    floor.onCleanup(gateways[label].stop);
  }
  for (const stack of STACKS) {
    const env = { ...process.env, BENCH_PROXY_TARGET: origin, BENCH_FLOOR_STACK: stack };
    gateways[stack] = await spawnComponent({ name: stack, args: [join(benchDir, 'stack-floor-server.mjs')], env, logPath: join(workDir, 'floor.log') });
    floor.onCleanup(gateways[stack].stop);
  }
  const router = await startRouterUnderTest({ repoDir: dirname(benchDir), workDir, name: 'router', upstreamBaseUrl: `${origin}/v1`, storage: `sqlite:${join(workDir, 'router.db')}` });
  floor.onCleanup(router.component.stop);

  const plain = benchTargets({ upstreamOrigin: origin, proxyOrigin: origin, router }).proxy;
  const targetsFor = (stream) => [
    ...Object.entries(gateways).map(([label, component]) => ({
      ...plain,
      label,
      url: `http://127.0.0.1:${component.ready.port}/v1/chat/completions`,
      body: stream ? plain.streamBody : plain.body,
      watch: { [label]: component.pid },
    })),
    { ...benchTargets({ upstreamOrigin: origin, proxyOrigin: origin, router }).router, label: 'router', watch: { router: router.component.pid } },
  ].map((target) => (target.label === 'router' && stream ? { ...target, body: target.streamBody } : target));

  const rows = [];
  for (const stream of [false, true]) {
    const targets = targetsFor(stream);
    await runLoadCells(targets, { connections: 16, warmupS: 0, rounds: 1, sliceS: 2 });
    for (const connections of CONNECTIONS) {
      const cells = await runLoadCells(targets, { connections, warmupS: 1, rounds: 3, sliceS: 1 });
      const proxyCpu = cells.proxy.cpuMsPerRequest.proxy;
      const pipeCpu = cells['proxy (pipe)'].cpuMsPerRequest['proxy (pipe)'];
      for (const { label } of targets) {
        const cell = cells[label];
        if (cell.failures > 0 || cell.requests === 0) throw new Error(`${label} failed ${cell.failures} of its requests`);
        rows.push({ kind: stream ? 'stream' : 'chat', connections, label, rps: cell.rps, cpu: cell.cpuMsPerRequest[label], ratio: cell.cpuMsPerRequest[label] / proxyCpu, pipeRatio: cell.cpuMsPerRequest[label] / pipeCpu });
      }
    }
  }
  const report = [
    '# Stack floor: the card\'s parts alone against the bare proxy and the router',
    '',
    'CPU per request of each gateway process, interleaved in one run (3 × 1 s per cell after 1 s of warm-up); ratios to `proxy`, the bare proxy of the main benchmark (parsing the request, the answer and every SSE line), and to `proxy (pipe)`, which pipes answers back unparsed as the stack-floor gateways do (they parse only the request).',
    '',
    '| requests | connections | gateway | req/s | CPU ms/request | ÷ bare proxy | ÷ proxy (pipe) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.kind} | ${r.connections} | ${r.label} | ${r.rps.toFixed(0)} | ${r.cpu.toFixed(3)} | ${r.ratio.toFixed(2)} | ${r.pipeRatio.toFixed(2)} |`),
  ].join('\n');
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'stack-floor.md'), `${report}\n`);
  process.stdout.write(`${report}\n\nwritten to bench/results/stack-floor.md\n`);
});
