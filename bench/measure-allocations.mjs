/**
 * `npm run build && node bench/measure-allocations.mjs`: how many bytes the router and the bare proxy
 * allocate per request (chat and streams), and where. Every allocated byte is work for the garbage
 * collector and, under load, resident memory until it runs, so this explains the GC share of the CPU
 * profile and the peak RSS. Unlike CPU time on a shared 2-core machine (±8% between runs at 16
 * connections), allocation per request barely moves between runs: a change to it can be judged alone.
 *
 * Each gateway runs with bench/sample-allocations.mjs preloaded; after priming, sampling covers a fixed
 * number of requests at 16 connections. Writes bench/results/allocations.md.
 * Env: BENCH_ALLOC_REQUESTS (4000), BENCH_ROUTER_DIR (a checkout with dist/ built, to measure another build),
 * BENCH_ALLOC_FUNCTIONS (20: how many functions each table lists).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchTargets, checkTarget } from './bench-targets.mjs';
import { boundedRun } from './run-bounded.mjs';
import { commitOf, routerCheckout } from './router-checkout.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = 16;
const PRIME_REQUESTS = 3000;
const preload = ['--import', join(benchDir, 'sample-allocations.mjs')];

/**
 * Bytes allocated per request by the bare proxy and the router, chat and streams, each process with the
 * sampling heap profiler preloaded; also a stage of `npm run bench` (bench/run.mjs), which judges issue
 * 35's allocation goal from it. Starts its own fake upstream, proxy and router and stops them.
 * @param {{ routerDir: string, workDir: string, onCleanup: (stop: () => Promise<void> | void) => void, requests?: number }} options
 * @returns {Promise<Array<{ label: 'proxy' | 'router', stream: boolean, ok: number, bytesPerRequest: number, modules: any[], functions: any[] }>>}
 */
export async function measureAllocations({ routerDir, workDir, onCleanup, requests = 4000 }) {
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], logPath: join(workDir, 'alloc-upstream.log') });
  onCleanup(upstream.stop);
  const origin = `http://127.0.0.1:${upstream.ready.port}`;
  const profileOf = (name) => join(workDir, `${name}.heapprofile`);
  const proxy = await spawnComponent({
    name: 'alloc-proxy',
    args: [join(benchDir, 'bare-proxy.mjs')],
    env: { ...process.env, BENCH_PROXY_TARGET: origin, BENCH_ALLOCATION_PROFILE: profileOf('proxy') },
    logPath: join(workDir, 'alloc-proxy.log'),
    nodeFlags: preload,
  });
  onCleanup(proxy.stop);
  const routerWorkDir = join(workDir, 'alloc-router');
  mkdirSync(routerWorkDir, { recursive: true });
  const router = await startRouterUnderTest({
    repoDir: routerDir,
    workDir: routerWorkDir,
    name: 'router',
    upstreamBaseUrl: `${origin}/v1`,
    storage: `sqlite:${join(routerWorkDir, 'router.db')}`,
    nodeFlags: preload,
    extraEnv: { BENCH_ALLOCATION_PROFILE: profileOf('router') },
  });
  onCleanup(router.component.stop);
  const targets = benchTargets({ upstreamOrigin: origin, proxyOrigin: `http://127.0.0.1:${proxy.ready.port}`, router });
  const pids = { proxy: proxy.pid, router: router.component.pid };

  const results = [];
  for (const stream of [false, true]) {
    for (const label of ['proxy', 'router']) {
      const target = targets[label];
      if (!stream) await checkTarget(target);
      const body = stream ? target.streamBody : target.body;
      await load(target, body, PRIME_REQUESTS);
      const file = profileOf(label);
      rmSync(file, { force: true });
      process.kill(pids[label], 'SIGUSR2');
      await new Promise((r) => setTimeout(r, 200));
      const ok = await load(target, body, requests);
      process.kill(pids[label], 'SIGUSR2');
      const profile = await readWhenWritten(file);
      results.push({ label, stream, ok, ...summarize(profile, ok) });
    }
  }
  await router.component.stop();
  await proxy.stop();
  await upstream.stop();
  return results;
}

const find = (results, label, stream) => results.find((r) => r.label === label && r.stream === stream);

/** Router ÷ proxy bytes per request, chat and stream, from measureAllocations' results. */
export function allocationRatios(results) {
  const of = (stream) => {
    const proxy = find(results, 'proxy', stream).bytesPerRequest;
    const router = find(results, 'router', stream).bytesPerRequest;
    return { proxy, router, ratio: router / proxy };
  };
  return { chat: of(false), stream: of(true) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const routerDir = routerCheckout();
  const requests = Number(process.env.BENCH_ALLOC_REQUESTS ?? 4000);
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-alloc-'));
  const measuring = boundedRun('measure-allocations', 240_000);
  measuring.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  await measuring.run(async () => {
    const results = await measureAllocations({ routerDir, workDir, onCleanup: (stop) => measuring.onCleanup(stop), requests });
    const report = render(results, { routerDir, requests });
    mkdirSync(join(benchDir, 'results'), { recursive: true });
    writeFileSync(join(benchDir, 'results', 'allocations.md'), `${report}\n`);
    process.stdout.write(`${report}\n\nwritten to bench/results/allocations.md\n`);
  });
}

async function load({ url, headers }, body, amount) {
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, amount, timeout: 10 });
  if (result['2xx'] !== amount) throw new Error(`${url}: ${result['2xx']} of ${amount} requests succeeded`);
  return result['2xx'];
}

async function readWhenWritten(file) {
  const deadline = Date.now() + 30_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`no allocation profile at ${file} within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // Written with one writeFileSync after the signal: wait until it parses.
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Where a sampled frame's code lives: the router's dist/<folder>, an npm package, a node: module, or the bench. */
function moduleOf(url) {
  if (!url) return '(V8 and native)';
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return `npm:${npm[1]}`;
  const dist = /\/dist\/([^/]+)\//.exec(url);
  if (dist) return `router dist/${dist[1]}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?([^/]+).*$/, 'node:$2');
  return url.replace(/^.*\/bench\//, 'bench/');
}

/** A function's file, short: dist/… for the router, the package's own path for npm, as is for node: modules. */
function fileOf(url, module) {
  if (module.startsWith('router ')) return url.replace(/^.*\/dist\//, 'dist/');
  if (module.startsWith('npm:')) return url.replace(/^.*node_modules\//, '');
  return url ? url.replace(/^.*\/bench\//, 'bench/') : module;
}

function summarize(profile, ok) {
  const byModule = new Map();
  const byFunction = new Map();
  let total = 0;
  const visit = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const module = moduleOf(url);
      byModule.set(module, (byModule.get(module) ?? 0) + node.selfSize);
      const fn = `${functionName || '(anonymous)'} ${fileOf(url, module)}${url ? `:${lineNumber + 1}` : ''}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  const perRequest = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, bytes]) => ({ name, bytes: bytes / ok }));
  return { bytesPerRequest: total / ok, modules: perRequest(byModule, 14), functions: perRequest(byFunction, Number(process.env.BENCH_ALLOC_FUNCTIONS ?? 20)) };
}

function kb(bytes) {
  return (bytes / 1024).toFixed(1);
}

function functionTable(functions) {
  return ['| function | KB/request |', '| --- | --- |', ...functions.map((f) => `| ${f.name.replaceAll('|', '\\|')} | ${kb(f.bytes)} |`)];
}

function render(results, { routerDir, requests }) {
  const ratios = allocationRatios(results);
  const lines = [
    `# Bytes allocated per request: router against the bare proxy, one run`,
    '',
    `${requests} requests per target and mode at ${CONNECTIONS} connections after ${PRIME_REQUESTS} to prime; V8's sampling heap profiler (one sample per 4 KB, collected objects included). Router: ${routerDir} at ${commitOf(routerDir)}.`,
    '',
    '| mode | bare proxy KB/request | router KB/request | router ÷ proxy |',
    '| --- | --- | --- | --- |',
  ];
  for (const [mode, { proxy, router, ratio }] of Object.entries(ratios)) lines.push(`| ${mode} | ${kb(proxy)} | ${kb(router)} | ${ratio.toFixed(2)} |`);
  for (const stream of [false, true]) {
    const router = find(results, 'router', stream);
    lines.push('', `## Router, ${stream ? 'stream' : 'chat'}: by module`, '', '| module | KB/request |', '| --- | --- |', ...router.modules.map((m) => `| ${m.name} | ${kb(m.bytes)} |`));
    lines.push('', `## Router, ${stream ? 'stream' : 'chat'}: by function`, '', ...functionTable(router.functions));
  }
  // What the proxy allocates too (node:http, the sockets, the JSON it parses and writes) is no work of the router's own.
  for (const stream of [false, true]) {
    lines.push('', `## Bare proxy, ${stream ? 'stream' : 'chat'}: by function`, '', ...functionTable(find(results, 'proxy', stream).functions));
  }
  return lines.join('\n');
}
