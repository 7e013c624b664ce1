/**
 * `npm run build && node bench/profile-router.mjs`: where the router spends its CPU under load.
 * Starts the fake upstream and the router (SQLite, memory limiter) with `node --cpu-prof`, primes it,
 * then sends non-stream chat completions at a fixed concurrency and summarizes only the samples of that
 * measured window. Writes bench/results/router-profile.md and the raw profile
 * bench/results/router.cpuprofile (open it in Chrome DevTools → Performance, or speedscope).
 *
 * Env: BENCH_PROFILE_CONNECTIONS (16), BENCH_PROFILE_S (10), BENCH_PRIME_S (3), BENCH_PROFILE_STREAM (set to 1 for stream: true),
 * BENCH_PROFILE_NAME (router-profile: the report's file name, to keep several), BENCH_PROFILE_HEAP (set to 1 for a
 * heap snapshot at the end of the load, summarized in the report: what the resident memory holds), BENCH_ROUTER_DIR
 * (profile the router of another checkout with dist/ built, e.g. a "before").
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { boundedRun } from './run-bounded.mjs';
import { routerCheckout } from './router-checkout.mjs';
import { runLoadCells } from './run-load-cells.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';
import { summarizeCpuProfile } from './summarize-cpu-profile.mjs';
import { summarizeHeapSnapshot } from './summarize-heap-snapshot.mjs';
import { readProcStats } from './read-proc-stats.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const connections = Number(process.env.BENCH_PROFILE_CONNECTIONS ?? 16);
const durationS = Number(process.env.BENCH_PROFILE_S ?? 10);
const primeS = Number(process.env.BENCH_PRIME_S ?? 3);
const stream = process.env.BENCH_PROFILE_STREAM === '1';
const reportName = process.env.BENCH_PROFILE_NAME ?? 'router-profile';
const heap = process.env.BENCH_PROFILE_HEAP === '1';

/** Where a sample's time goes, first match wins (see summarizeCpuProfile). */
const GROUPS = [
  { name: 'garbage collection', modules: /^\(garbage collector\)$/ },
  { name: 'upstream call: ofetch, fetch/undici, WHATWG streams, dist/upstream', modules: /^(npm:ofetch|npm:undici|node:undici|node:internal\/webstreams|router dist\/upstream)/ },
  { name: 'stores: SQLite quota admission, rate limiter, key lookup', modules: /^(npm:better-sqlite3|router dist\/stores|npm:lru-cache)/ },
  { name: 'key verification: HMAC of the API key', modules: /^(router dist\/accounts|node:internal\/crypto)/ },
  { name: 'request body: read, JSON.parse, ajv validation', modules: /^(npm:ajv|native: (parse|validate\d+)$)/ },
  { name: 'routing and provider adapter (dist/routing, dist/providers)', modules: /^router dist\/(routing|providers)/ },
  { name: 'HTTP server: h3, node:http, sockets, response writes', modules: /^(npm:h3|node:http|node:net|node:internal\/stream_base_commons|native: writev$)/ },
];

const workDir = mkdtempSync(join(tmpdir(), 'llm-router-profile-'));
const profiling = boundedRun('profile', 120_000);
profiling.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

await profiling.run(async () => {
  const profileDir = join(workDir, 'profile');
  // The heap snapshot goes there too, and Node writes it only into a directory that exists.
  mkdirSync(profileDir, { recursive: true });
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], logPath: join(workDir, 'upstream.log') });
  profiling.onCleanup(upstream.stop);
  const origin = `http://127.0.0.1:${upstream.ready.port}`;
  const router = await startRouterUnderTest({
    repoDir: routerCheckout(),
    workDir,
    name: 'router',
    upstreamBaseUrl: `${origin}/v1`,
    storage: `sqlite:${join(workDir, 'router.db')}`,
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=250', ...(heap ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${profileDir}`] : [])],
  });
  profiling.onCleanup(router.component.stop);
  const target = benchTargets({ upstreamOrigin: origin, proxyOrigin: origin, router }).router;
  await checkTarget(target);
  const load = [{ ...target, label: 'router', body: stream ? target.streamBody : target.body, watch: { router: router.component.pid } }];
  await runLoadCells(load, { connections, warmupS: 0, rounds: 1, sliceS: primeS });

  const fromUs = nowUs();
  const { router: cell } = await runLoadCells(load, { connections, warmupS: 0, rounds: 1, sliceS: durationS });
  const toUs = nowUs();
  const rss = readProcStats(router.component.pid);
  const heapSummary = heap ? await takeHeapSnapshot(router.component.pid, profileDir) : undefined;
  // SIGTERM makes `router serve` close and exit, which is when --cpu-prof writes the profile.
  await router.component.stop();

  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the router wrote no .cpuprofile');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  const summary = summarizeCpuProfile(profile, { fromUs, toUs, top: 40, groups: GROUPS });
  if (summary.busyMs === 0) throw new Error('no profile samples fall inside the measured window');

  const report = [renderProfile(summary, cell, { connections, durationS, stream }), ...renderMemory(rss, heapSummary)].join('\n');
  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${reportName}.md`), `${report}\n`);
  copyFileSync(join(profileDir, file), join(resultsDir, `${reportName.replace('-profile', '')}.cpuprofile`));
  process.stdout.write(`${report}\n\nwritten to bench/results/${reportName}.md and its .cpuprofile\n`);
});

/** SIGUSR2 makes the router (started with --heapsnapshot-signal) write a snapshot; it takes a few seconds under its own heap. */
async function takeHeapSnapshot(pid, dir) {
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot'));
    // Written in place: done once its size stops changing.
    if (file) {
      const size = () => readFileSync(join(dir, file)).length;
      const before = size();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (size() === before && before > 0) return summarizeHeapSnapshot(join(dir, file));
    } else await new Promise((resolve) => setTimeout(resolve, 250));
    if (Date.now() > deadline) throw new Error('the router wrote no heap snapshot within 60 s');
  }
}

function renderMemory(rss, heapSummary) {
  const lines = ['', '## Memory', '', `Router RSS at the end of the load: ${rss.rssMb.toFixed(1)} MB (peak ${rss.peakRssMb.toFixed(1)} MB).`];
  if (!heapSummary) return lines;
  return [
    ...lines,
    `Heap snapshot: ${heapSummary.totalMb.toFixed(1)} MB in ${heapSummary.nodes} objects (own sizes; the rest of the RSS is code, stacks, buffers outside the heap and free pages).`,
    '',
    '| constructor or kind | count | MB |',
    '| --- | --- | --- |',
    ...heapSummary.top.map((g) => `| ${g.name.replaceAll('|', '\\|').slice(0, 80)} | ${g.count} | ${g.mb.toFixed(2)} |`),
  ];
}

function renderProfile(summary, cell, { connections, durationS, stream }) {
  const pct = (share) => `${(share * 100).toFixed(1)}%`;
  const table = (title, rows) => [
    `| ${title} | self ms | share of busy time |`,
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.name.replaceAll('|', '\\|')} | ${r.ms.toFixed(0)} | ${pct(r.share)} |`),
  ];
  return [
    `# Router CPU profile — ${stream ? 'stream' : 'non-stream'} chat completions, ${connections} connections, ${durationS} s`,
    '',
    `${cell.requests} requests at ${cell.rps.toFixed(0)} req/s, p50 ${cell.p50.toFixed(2)} ms; router CPU ${cell.cpuMsPerRequest.router.toFixed(3)} ms/request (/proc, profiler overhead included).`,
    `Busy (non-idle) main-thread time sampled in the window: ${summary.busyMs.toFixed(0)} ms, ${(summary.busyMs / cell.requests).toFixed(3)} ms/request.`,
    '',
    '## Where the time goes (each sample counted once, in the first group with a module on its stack)',
    '',
    ...table('group', summary.byGroup).map((line, i) => (i === 0 ? `| group | ms | share of busy time | ms/request |` : i === 1 ? '| --- | --- | --- | --- |' : line.replace(/ \|$/, ` | ${(summary.byGroup[i - 2].ms / cell.requests).toFixed(3)} |`))),
    '',
    '## Self time by module',
    '',
    ...table('module', summary.selfByModule),
    '',
    '## Inclusive time by module (samples with the module anywhere on the stack)',
    '',
    ...table('module', summary.inclusiveByModule).map((line, i) => (i === 0 ? '| module | inclusive ms | share of busy time |' : line)),
    '',
    '## Self time by function',
    '',
    ...table('function  module  file:line', summary.selfByFunction),
    '',
    "## Inclusive time by the router's own functions (samples with the function anywhere on the stack; a stack ends at the last await)",
    '',
    ...table('function  file:line', summary.inclusiveByRouterFunction).map((line, i) => (i === 0 ? '| function  file:line | inclusive ms | share of busy time |' : line)),
  ].join('\n');
}
