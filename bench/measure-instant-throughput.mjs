/**
 * Stage 9: throughput with an instant mock (issue 35). A second fake upstream answers in the request's
 * own tick (BENCH_LATENCY_MS=0), so nothing waits on the upstream and each gateway runs as fast as its
 * own CPU allows: requests a second at 64 connections, router ÷ bare proxy, measured interleaved (a fresh
 * proxy and router in front of the instant fake, primed alike). On 2 cores the load generator and the
 * fake share the machine with the gateway under load, as they do for the proxy.
 */
import { benchTargets, checkTarget } from './bench-targets.mjs';

export const INSTANT_CONNECTIONS = 64;

/**
 * @param {{ start: (name: string, script: string, env: Record<string, string>) => Promise<any>,
 *   startRouter: (name: string, upstreamOrigin: string) => Promise<any>,
 *   prime: (targets: object[]) => Promise<unknown>, measureCells: (targets: object[], connections: number) => Promise<Record<string, any>> }} stage
 */
export async function measureInstantThroughput({ start, startRouter, prime, measureCells }) {
  const upstream = await start('instant-upstream', 'fake-upstream.mjs', { BENCH_LATENCY_MS: '0' });
  const upstreamOrigin = `http://127.0.0.1:${upstream.ready.port}`;
  const proxy = await start('instant-proxy', 'bare-proxy.mjs', { BENCH_PROXY_TARGET: upstreamOrigin });
  const router = await startRouter('router-instant', upstreamOrigin);
  const endpoints = benchTargets({ upstreamOrigin, proxyOrigin: `http://127.0.0.1:${proxy.ready.port}`, router });
  const targets = [
    { ...endpoints.proxy, label: 'proxy', watch: { gateway: proxy.pid, upstream: upstream.pid } },
    { ...endpoints.router, label: 'router', watch: { gateway: router.component.pid, upstream: upstream.pid } },
  ];
  for (const target of targets) await checkTarget(target);
  await prime(targets);
  const cells = await measureCells(targets, INSTANT_CONNECTIONS);
  await router.component.stop();
  await proxy.stop();
  await upstream.stop();
  return { connections: INSTANT_CONNECTIONS, cells, throughputVsProxy: cells.router.rps / cells.proxy.rps };
}
