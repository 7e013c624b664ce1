/**
 * Stage 6: what the usage ledger costs. Two fresh routers side by side (SQLite, memory limiter), one
 * with `ledger.enabled: true` (the default: a record per request, queued and written in batches) and one
 * with it off, primed alike and measured interleaved with the direct baseline at 1 and 16 connections.
 * Reported: the router's CPU per request with the ledger on ÷ off (goal ≤ 1.05) and the added p50 of
 * each against direct. Afterwards /readyz must show the ledger-on router wrote a record for every 2xx
 * (none dropped, nothing failing) and the other with its ledger off, so the rows measure what they say.
 */
import { benchTargets, checkTarget } from './bench-targets.mjs';

export const LEDGER_GOAL_CPU_RATIO = 1.05;
const CONNECTIONS = [1, 16];

/**
 * @param {{ startRouter: (name: string, ledger: object) => Promise<any>, upstreamOrigin: string, upstreamPid: number,
 *   direct: object, prime: (targets: object[]) => Promise<Record<string, { sent: number, ok: number }>>,
 *   measureCells: (targets: object[], connections: number) => Promise<Record<string, any>>, log: (line: string) => void }} stage
 */
export async function measureLedger({ startRouter, upstreamOrigin, upstreamPid, direct, prime, measureCells, log }) {
  const routers = { 'ledger on': await startRouter('router-ledger-on', { enabled: true }), 'ledger off': await startRouter('router-ledger-off', { enabled: false }) };
  const targets = [direct];
  for (const [label, router] of Object.entries(routers)) {
    const target = { ...benchTargets({ upstreamOrigin, proxyOrigin: upstreamOrigin, router }).router, label, watch: { gateway: router.component.pid, upstream: upstreamPid } };
    await checkTarget(target);
    targets.push(target);
  }
  const primed = await prime(targets);
  const cells = {};
  for (const connections of CONNECTIONS) {
    cells[connections] = await measureCells(targets, connections);
    for (const label of Object.keys(routers)) {
      const cell = cells[connections][label];
      log(`${label.padEnd(10)} c=${String(connections).padEnd(3)} ${cell.rps.toFixed(0).padStart(5)} req/s  p50 ${cell.p50.toFixed(2)} ms  CPU ${cell.gatewayCpuMs.toFixed(3)} ms/req`);
    }
  }
  const ready = {};
  for (const [label, router] of Object.entries(routers)) {
    const ok = 1 + (primed[label]?.ok ?? 0) + CONNECTIONS.reduce((sum, c) => sum + cells[c][label].ok, 0);
    ready[label] = await expectLedger(router.url, label, ok);
    await router.component.stop();
  }
  return { connections: CONNECTIONS, cells, ready };
}

/** The ledger-on router wrote (or still queues) a record per 2xx and dropped none; the other has no ledger. */
async function expectLedger(url, label, ok) {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
  const ledger = (await response.json()).ledger;
  const on = label === 'ledger on';
  const recorded = (ledger.written ?? 0) + (ledger.queued ?? 0);
  if (on ? ledger.state !== 'ok' || ledger.dropped !== 0 || recorded < ok : ledger.state !== 'off') {
    throw new Error(`${label}: /readyz ledger ${JSON.stringify(ledger)} does not match (expected ${on ? `state ok, nothing dropped, at least ${ok} records` : 'state off'})`);
  }
  return { state: ledger.state, written: ledger.written ?? 0, queued: ledger.queued ?? 0, ok };
}
