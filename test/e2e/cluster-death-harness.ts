/**
 * What the cluster-mode death tests share (cluster-worker-death.test.ts, cluster-watchdog.test.ts): a
 * spawned router with two workers, requests each on a connection of its own with how they settled, and
 * the primary's JSON log read for the workers' pids and the times it acted.
 */
import { request as httpRequest } from 'node:http';
import { planLimits, waitFor } from './router-harness.js';
import { jsonLogLines, startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';

export const CLIENTS = 16;
/** A request neither answered nor reset within this counts as unanswered (the fake answers in 40 ms). */
export const ANSWER_BOUND_MS = 3000;

export type Outcome = { startedAt: number; ms: number } & ({ kind: 'answered'; status: number } | { kind: 'connection error' } | { kind: 'unanswered' });

/** One chat request on a connection of its own, settled by its answer, a connection error, or the bound. */
export function postOnItsOwnConnection(url: string, key: string, boundMs: number): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const target = new URL(`${url}/v1/chat/completions`);
    const body = JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }] });
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      agent: false,
      headers: { 'user-agent': 'router-tests/1.0', authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' },
    });
    let settled = false;
    const settle = (outcome: { kind: 'answered'; status: number } | { kind: 'connection error' } | { kind: 'unanswered' }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, startedAt: started, ms: Date.now() - started });
    };
    const timer = setTimeout(() => {
      settle({ kind: 'unanswered' });
      req.destroy();
    }, boundMs);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => settle({ kind: 'answered', status: res.statusCode ?? 0 }));
      res.on('error', () => settle({ kind: 'connection error' }));
    });
    req.on('error', () => settle({ kind: 'connection error' }));
    req.end(body);
  });
}

export const messages = (router: SpawnedRouter) => jsonLogLines(router.output()).map((line) => String(line.msg));

/** pids of the workers that said they listen and have not been reported as exited. */
export function liveWorkerPids(router: SpawnedRouter): number[] {
  const listening = messages(router).flatMap((msg) => /^worker \d+ \(pid (\d+)\) listening$/.exec(msg)?.slice(1).map(Number) ?? []);
  const exited = new Set(messages(router).flatMap((msg) => /^worker \d+ \(pid (\d+)\) exited/.exec(msg)?.slice(1).map(Number) ?? []));
  return listening.filter((pid) => !exited.has(pid));
}

/** When the primary logged a line matching `pattern` (its JSON log's time), or undefined. */
export function loggedAt(router: SpawnedRouter, pattern: RegExp): number | undefined {
  const line = jsonLogLines(router.output()).find((candidate) => pattern.test(String(candidate.msg)));
  return line ? Date.parse(String(line.time)) : undefined;
}

export const watchdogKills = (router: SpawnedRouter) => messages(router).filter((msg) => msg.includes('sent no heartbeat'));

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startCluster(server: (doc: any) => void = () => undefined): Promise<SpawnedRouter> {
  const router = await startSpawnedRouter({
    readyTimeoutMs: 40_000,
    env: { ROUTER_WORKERS: '2' },
    patch: { plans: planLimits({ pro: { monthlyRequests: 10_000_000, requestsPerMinute: 1_000_000 } }), server },
  });
  await waitFor(() => messages(router).some((msg) => msg.startsWith('router listening on') && msg.includes('with 2 workers')), 40_000);
  return router;
}
