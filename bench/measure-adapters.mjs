/**
 * Stage 7: the router with router/frontier sent to the Anthropic or the Gemini adapter, which translate
 * every request, every response and every stream chunk between the OpenAI chat format and the
 * provider's (the fake upstream answers in each format). Two fresh routers (SQLite, memory limiter)
 * measured interleaved with the bare proxy (an OpenAI pass-through, the floor of any Node gateway), for
 * non-stream and stream requests. Reported: each router's CPU per request ÷ the bare proxy's (goal ≤ 1.6).
 */
import { benchTargets, checkTarget } from './bench-targets.mjs';

export const ADAPTER_GOAL_CPU_RATIO = 1.6;
export const ADAPTER_PROVIDERS = ['anthropic', 'gemini'];
const CONNECTIONS = 16;

/**
 * @param {{ startRouter: (name: string, provider: string) => Promise<any>, upstreamOrigin: string, upstreamPid: number,
 *   proxy: object, prime: (targets: object[]) => Promise<unknown>,
 *   measureCells: (targets: object[], connections: number) => Promise<Record<string, any>>, log: (line: string) => void }} stage
 *   proxy: the bare proxy's target (label `proxy`)
 */
export async function measureAdapters({ startRouter, upstreamOrigin, upstreamPid, proxy, prime, measureCells, log }) {
  const routers = [];
  const targets = [proxy];
  for (const provider of ADAPTER_PROVIDERS) {
    const router = await startRouter(`router-${provider}`, provider);
    routers.push(router);
    const target = { ...benchTargets({ upstreamOrigin, proxyOrigin: upstreamOrigin, router }).router, label: provider, watch: { gateway: router.component.pid, upstream: upstreamPid } };
    await checkTarget(target);
    targets.push(target);
  }
  const cells = {};
  for (const mode of ['chat', 'stream']) {
    const measured = mode === 'chat' ? targets : targets.map((target) => ({ ...target, body: target.streamBody }));
    await prime(measured);
    cells[mode] = await measureCells(measured, CONNECTIONS);
    for (const { label } of measured) {
      const cell = cells[mode][label];
      log(`${label.padEnd(10)} ${mode.padEnd(6)} c=${CONNECTIONS} ${cell.rps.toFixed(0).padStart(5)} req/s  p50 ${cell.p50.toFixed(2)} ms  CPU ${cell.gatewayCpuMs.toFixed(3)} ms/req  failed ${cell.failures}`);
    }
  }
  for (const router of routers) await router.component.stop();
  return { connections: CONNECTIONS, providers: ADAPTER_PROVIDERS, cells };
}
