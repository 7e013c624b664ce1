/**
 * Stage 8: POST /v1/responses, the API Codex CLI speaks, against the bare proxy forwarding the same
 * request to the fake's /v1/responses. The router passes Responses through natively to an OpenAI host
 * (providers.yaml: `nativeResponses`), so this is the same work as chat on another schema: admission,
 * validation of the Responses body, the adapter, the answer's model rewritten and its cost added.
 * Measured on the main router after its chat and stream cells (and after the peak RSS is read), primed
 * first, interleaved with the proxy at each concurrency. Non-stream, as issue 35's goal asks.
 */
import { responsesTargets, checkTarget } from './bench-targets.mjs';

export const RESPONSES_CONNECTIONS = [16, 128];

/**
 * @param {{ upstreamOrigin: string, proxy: { label: string, url: string, watch: object }, router: object, routerPid: number,
 *   upstreamPid: number, prime: (targets: object[]) => Promise<unknown>,
 *   measureCells: (targets: object[], connections: number) => Promise<Record<string, any>> }} stage
 */
export async function measureResponses({ upstreamOrigin, proxy, router, routerPid, upstreamPid, prime, measureCells }) {
  const endpoints = responsesTargets({ upstreamOrigin, proxyOrigin: new URL(proxy.url).origin, router });
  const targets = [
    { ...endpoints.proxy, label: 'proxy', watch: proxy.watch },
    { ...endpoints.router, label: 'router', watch: { gateway: routerPid, upstream: upstreamPid } },
  ];
  for (const target of targets) await checkTarget(target);
  await prime(targets);
  const cells = {};
  for (const connections of RESPONSES_CONNECTIONS) cells[connections] = await measureCells(targets, connections);
  return { connections: RESPONSES_CONNECTIONS, cells };
}
