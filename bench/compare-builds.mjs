/**
 * `npm run build && BENCH_BASE_DIR=<other checkout> node bench/compare-builds.mjs`: this build's router
 * against another build's, side by side in one run, with the bare proxy as the floor. Separate runs of
 * `npm run bench` drift by 10–40% in absolute CPU on a shared machine (the proxy's own figures included),
 * so a change is judged here: both routers get the same priming and interleaved slices. The other
 * checkout needs its own `dist/` built and its `node_modules` (a symlink to this one's will do).
 *
 * Env: BENCH_BASE_DIR (required; `.` compares this build with itself, e.g. under other Node flags),
 * BENCH_COMPARE_STREAM=1 for stream: true, BENCH_CONNECTIONS (16,128), BENCH_ROUNDS (5),
 * BENCH_BASE_NODE_FLAGS / BENCH_THIS_NODE_FLAGS (space-separated Node/V8 flags for each router, e.g.
 * `--max-semi-space-size=4`), BENCH_BASE_ENV / BENCH_THIS_ENV (space-separated NAME=value for each router only,
 * e.g. `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318` to measure tracing on against off), BENCH_BASE_LEDGER_OFF=1 /
 * BENCH_BASE_SERVER / BENCH_THIS_SERVER (JSON of server.yaml sections merged into that router's config, e.g.
 * `{"metrics":{"enabled":false}}`: with BENCH_BASE_DIR=. what one part costs, on ÷ off),
 * BENCH_THIS_LEDGER_OFF=1 (that router runs with `ledger.enabled: false`: with BENCH_BASE_DIR=. the usage ledger's cost,
 * on ÷ off). Writes bench/results/compare-builds.md (or compare-builds-stream.md). About 2 minutes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets } from './bench-targets.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { processTreeCpu } from './read-process-tree-cpu.mjs';
import { boundedRun } from './run-bounded.mjs';
import { commitOf } from './router-checkout.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = dirname(benchDir);
if (!process.env.BENCH_BASE_DIR) {
  console.error('Set BENCH_BASE_DIR to another checkout of the router with dist/ built.');
  process.exit(2);
}
const baseDir = resolve(process.env.BENCH_BASE_DIR);
const stream = process.env.BENCH_COMPARE_STREAM === '1';
const connections = (process.env.BENCH_CONNECTIONS ?? '16,128').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const nodeFlagsOf = (name) => (process.env[name] ?? '').split(' ').filter(Boolean);
const nodeFlags = { base: nodeFlagsOf('BENCH_BASE_NODE_FLAGS'), this: nodeFlagsOf('BENCH_THIS_NODE_FLAGS') };
const envOf = (name) => Object.fromEntries(nodeFlagsOf(name).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const extraEnv = { base: envOf('BENCH_BASE_ENV'), this: envOf('BENCH_THIS_ENV') };
/** One side's server.yaml sections: BENCH_<SIDE>_SERVER, and BENCH_<SIDE>_LEDGER_OFF=1 as the ledger's switch. */
const serverSettingsOf = (side) => ({
  ...JSON.parse(process.env[`BENCH_${side}_SERVER`] || '{}'),
  ...(process.env[`BENCH_${side}_LEDGER_OFF`] === '1' ? { ledger: { enabled: false } } : {}),
});
const serverSettings = { base: serverSettingsOf('BASE'), this: serverSettingsOf('THIS') };
const workDir = mkdtempSync(join(tmpdir(), 'llm-router-compare-'));
const comparison = boundedRun('compare-builds', 300_000);
comparison.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));

const flagsNote = (flags) => (flags.length > 0 ? `, ${flags.join(' ')}` : '');
const settingsNote = (label) => (Object.keys(serverSettings[label]).length > 0 ? `, ${JSON.stringify(serverSettings[label])}` : '');

await comparison.run(async () => {
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], logPath: join(workDir, 'upstream.log') });
  comparison.onCleanup(upstream.stop);
  const origin = `http://127.0.0.1:${upstream.ready.port}`;
  const proxy = await spawnComponent({ name: 'proxy', args: [join(benchDir, 'bare-proxy.mjs')], env: { ...process.env, BENCH_PROXY_TARGET: origin }, logPath: join(workDir, 'proxy.log') });
  comparison.onCleanup(proxy.stop);
  const routers = {};
  for (const [label, dir] of [['base', baseDir], ['this', repoDir]]) {
    const routerDir = join(workDir, label);
    mkdirSync(routerDir);
    routers[label] = await startRouterUnderTest({ repoDir: dir, workDir: routerDir, name: label, upstreamBaseUrl: `${origin}/v1`, storage: `sqlite:${join(routerDir, 'router.db')}`, nodeFlags: nodeFlags[label], extraEnv: extraEnv[label], server: serverSettings[label] });
    comparison.onCleanup(routers[label].component.stop);
  }
  const pick = (target) => (stream ? target.streamBody : target.body);
  const proxyTarget = benchTargets({ upstreamOrigin: origin, proxyOrigin: `http://127.0.0.1:${proxy.ready.port}`, router: routers.base }).proxy;
  const targets = [{ ...proxyTarget, label: 'proxy', body: pick(proxyTarget), watch: { gateway: proxy.pid } }];
  for (const [label, router] of Object.entries(routers)) {
    const target = benchTargets({ upstreamOrigin: origin, proxyOrigin: origin, router }).router;
    // The router's whole process tree: one process, or a cluster's primary and its workers (ROUTER_WORKERS=2 in BENCH_<SIDE>_ENV).
    targets.push({ ...target, label, body: pick(target), watch: { gateway: processTreeCpu(router.component.pid) } });
  }
  await runLoadCells(targets, { connections: 16, warmupS: 0, rounds: 1, sliceS: 3 });
  const rows = [];
  for (const c of connections) {
    const cells = await runLoadCells(targets, { connections: c, warmupS: 1, rounds, sliceS: 1 });
    for (const { label } of targets) {
      const cell = cells[label];
      if (cell.failures > 0 || cell.requests === 0) throw new Error(`${label} failed ${cell.failures} of its requests at c=${c}`);
      rows.push({ c, label, ...cell, cpu: cell.cpuMsPerRequest.gateway, vsProxy: cell.cpuMsPerRequest.gateway / cells.proxy.cpuMsPerRequest.gateway, vsBase: cell.cpuMsPerRequest.gateway / cells.base.cpuMsPerRequest.gateway });
    }
  }
  const rss = Object.fromEntries(Object.entries(routers).map(([label, router]) => [label, readProcStats(router.component.pid).peakRssMb]));
  const report = [
    `# This build (${commitOf(repoDir)}${flagsNote([...nodeFlags.this, ...Object.keys(extraEnv.this)])}${settingsNote('this')}) against ${baseDir} (${commitOf(baseDir)}${flagsNote([...nodeFlags.base, ...Object.keys(extraEnv.base)])}${settingsNote('base')}): ${stream ? 'streams' : 'chat'}, one run`,
    '',
    `Interleaved: ${rounds} × 1 s per target and cell after 1 s of warm-up, all targets primed alike. Peak RSS after the run: base ${rss.base.toFixed(0)} MB, this ${rss.this.toFixed(0)} MB.`,
    '',
    '| connections | target | req/s | p50 | p99 | CPU ms/req | ÷ bare proxy | ÷ base router |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.c} | ${r.label} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} ms | ${r.p99.toFixed(2)} ms | ${r.cpu.toFixed(3)} | ${r.vsProxy.toFixed(2)} | ${r.label === 'proxy' ? '—' : r.vsBase.toFixed(2)} |`),
  ].join('\n');
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const name = stream ? 'compare-builds-stream.md' : 'compare-builds.md';
  writeFileSync(join(resultsDir, name), `${report}\n`);
  process.stdout.write(`${report}\n\nwritten to bench/results/${name}\n`);
});
