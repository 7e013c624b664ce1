/**
 * Router overhead on a fusion request at c=1: the wall time of a non-stream `router/fusion` request
 * minus its critical path on the fakes, measured the same way from here without the router (the three
 * panel calls at once, then the judge call, then the writer call, straight to the fake upstream). Router
 * and direct runs take turns request by request, so drift on the machine hits both alike. Goal: the
 * overhead's p50 ≤ 3 ms. The router's CPU time per fusion request (its whole process, all five calls) is
 * reported beside it: unlike wall time, it barely moves when other work shares the machine.
 *
 * Also runnable alone (build first): `npm run build && node bench/measure-fusion.mjs` starts the fake
 * upstream and a router, measures BENCH_FUSION_REQUESTS (default 100) after BENCH_FUSION_WARMUP (default 60)
 * warm-up pairs (the fusion path is cold code until then), prints the
 * figures as JSON and stops everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnComponent } from './spawn-component.mjs';
import { FUSION_JUDGE_MODEL, FUSION_PANEL_MODELS, startRouterUnderTest } from './start-router-under-test.mjs';
import { readProcStats } from './read-proc-stats.mjs';
import { summarizeLatencies } from './summarize-latencies.mjs';

export const FUSION_OVERHEAD_GOAL_MS = 3;
const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Say hello in a short sentence.' },
];

/**
 * @param {{ routerUrl: string, apiKey: string, upstreamOrigin: string, requests: number, warmup: number, routerPid?: number }} options
 * @returns {Promise<{ router: object, direct: object, overheadP50Ms: number, overheadP99Ms: number, goalMs: number, met: boolean }>}
 */
export async function measureFusion({ routerUrl, apiKey, upstreamOrigin, requests, warmup, routerPid }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const routerTimes = [];
  let routerCpuMs = 0;
  const directTimes = [];
  const routerHeaders = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'user-agent': 'llm-router-bench/1.0' };
  const directHeaders = { authorization: 'Bearer sk-bench-direct', 'content-type': 'application/json', 'user-agent': 'llm-router-bench/1.0' };
  const fusionBody = JSON.stringify({ model: 'router/fusion', messages: MESSAGES });
  const upstreamBody = (model) => JSON.stringify({ model, messages: MESSAGES });
  try {
    for (let i = 0; i < warmup + requests; i++) {
      const cpuBefore = routerPid === undefined ? 0 : readProcStats(routerPid).cpuMs;
      const routed = await timed(() => post(`${routerUrl}/v1/chat/completions`, routerHeaders, fusionBody, agent));
      if (i >= warmup && routerPid !== undefined) routerCpuMs += readProcStats(routerPid).cpuMs - cpuBefore;
      const direct = await timed(async () => {
        await Promise.all(FUSION_PANEL_MODELS.map((model) => post(`${upstreamOrigin}/v1/chat/completions`, directHeaders, upstreamBody(model), agent)));
        await post(`${upstreamOrigin}/v1/chat/completions`, directHeaders, upstreamBody(FUSION_JUDGE_MODEL), agent);
        await post(`${upstreamOrigin}/v1/chat/completions`, directHeaders, upstreamBody('gpt-4.1'), agent);
      });
      if (i >= warmup) {
        routerTimes.push(routed);
        directTimes.push(direct);
      }
    }
  } finally {
    agent.destroy();
  }
  const router = summarizeLatencies(routerTimes);
  const direct = summarizeLatencies(directTimes);
  const overheadP50Ms = router.p50 - direct.p50;
  const routerCpuMsPerRequest = routerPid === undefined ? null : routerCpuMs / requests;
  return { router, direct, overheadP50Ms, overheadP99Ms: router.p99 - direct.p99, routerCpuMsPerRequest, goalMs: FUSION_OVERHEAD_GOAL_MS, met: overheadP50Ms <= FUSION_OVERHEAD_GOAL_MS };
}

async function timed(work) {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function post(url, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': payload.length } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (answer.model === 'router/fusion' && answer.router?.calls?.length !== FUSION_PANEL_MODELS.length + 2) {
          return reject(new Error(`router/fusion made ${answer.router?.calls?.length} calls, expected ${FUSION_PANEL_MODELS.length + 2}`));
        }
        resolve();
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

async function runAlone() {
  const benchDir = dirname(fileURLToPath(import.meta.url));
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-bench-fusion-'));
  const stops = [];
  try {
    const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], env: { ...process.env }, logPath: join(workDir, 'fake.log') });
    stops.push(upstream.stop);
    const upstreamOrigin = `http://127.0.0.1:${upstream.ready.port}`;
    const router = await startRouterUnderTest({ repoDir: dirname(benchDir), workDir, name: 'router', upstreamBaseUrl: `${upstreamOrigin}/v1`, storage: `sqlite:${join(workDir, 'router.db')}` });
    stops.push(router.component.stop);
    const figures = await measureFusion({ routerUrl: router.url, apiKey: router.apiKey, upstreamOrigin, requests: Number(process.env.BENCH_FUSION_REQUESTS ?? 100), warmup: Number(process.env.BENCH_FUSION_WARMUP ?? 60), routerPid: router.component.pid });
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    while (stops.length > 0) await stops.pop()().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAlone();
