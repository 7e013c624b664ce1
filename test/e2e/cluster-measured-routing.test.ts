/**
 * Measured routing in cluster mode (`listen.workers: 2`, the built router spawned on SQLite): traffic
 * that reaches one worker moves the figures both workers rank by. Requests are steered to a worker by
 * connection (the workers accept from one shared socket, so each connection belongs to one of them), and
 * which worker holds a connection is read from its log line: a request with a wrong key is logged with
 * its request id by the worker that answered it.
 */
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLogLines, startSpawnedRouter, type SpawnedRouter } from '../security/process-harness.js';
import { HYSTERESIS_ROUTE, turnAndHold } from './measured-hysteresis-scenario.js';

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'cluster-measured-tests/1.0' };
const MEASURED = { id: 'router/measured', family: 'frontier', description: 'ranked by measured TTFB', quotaWeight: 1, retryBudget: 2, order: 'measured' };

interface Connection {
  client: Client;
  worker: string;
}

describe('measured routing in cluster mode (two workers share the figures and the hysteresis)', { timeout: 120_000 }, () => {
  let router: SpawnedRouter;
  let key: string;

  beforeAll(async () => {
    router = await startSpawnedRouter({
      readyTimeoutMs: 40_000,
      env: { ROUTER_WORKERS: '2' },
      patch: {
        routes: (doc: any) => {
          doc.routes.find((route: { id: string }) => route.id === 'router/frontier').tiers = [[{ provider: 'openai', model: 'gpt-4.1' }], [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }]];
          doc.routes.push({ ...MEASURED, tiers: [[{ provider: 'openai', model: 'gpt-4.1' }, { provider: 'anthropic', model: 'claude-sonnet-4-5' }, { provider: 'gemini', model: 'gemini-2.5-pro' }]] });
          doc.routes.push(HYSTERESIS_ROUTE);
        },
        plans: (doc: any) => {
          for (const plan of doc.plans) plan.routeProfiles = [...plan.routeProfiles, 'router/measured', HYSTERESIS_ROUTE.id];
        },
      },
    });
    await until(() => jsonLogLines(router.output()).some((line) => String(line.msg).includes('with 2 workers')), 40_000);
    ({ key } = await router.account('pro'));
  }, 90_000);
  afterAll(async () => {
    await router?.close();
  });

  /** A new connection, and the worker that holds it. */
  async function connect(): Promise<Connection> {
    // Kept open for the whole test: undici's default closes an idle connection after 4 s, and its
    // replacement could land on the other worker.
    const client = new Client(router.url, { pipelining: 1, keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
    const answer = await client.request({ path: '/v1/models', method: 'GET', headers: { ...HEADERS, authorization: 'Bearer sk-wrong-key-for-worker-probe' } });
    const requestId = answer.headers['x-request-id'] as string;
    await answer.body.dump();
    expect(answer.statusCode).toBe(401);
    let worker: string | undefined;
    await until(() => (worker = workerThatLogged(requestId)) !== undefined, 5000);
    return { client, worker: worker! };
  }

  function workerThatLogged(requestId: string): string | undefined {
    const line = jsonLogLines(router.output()).find((candidate) => candidate.requestId === requestId);
    return line ? String(line.tag) : undefined;
  }

  /** One connection to each worker. */
  async function oneConnectionPerWorker(): Promise<Map<string, Client>> {
    const byWorker = new Map<string, Client>();
    for (let i = 0; i < 20 && byWorker.size < 2; i++) {
      const { client, worker } = await connect();
      if (byWorker.has(worker)) await client.close();
      else byWorker.set(worker, client);
    }
    expect(byWorker.size).toBe(2);
    return byWorker;
  }

  async function chat(client: Client, model: string): Promise<string> {
    const answer = await client.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { ...HEADERS, authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    await answer.body.dump();
    expect(answer.statusCode).toBe(200);
    return answer.headers['x-router-upstream'] as string;
  }

  async function measured(client: Client): Promise<unknown[]> {
    const answer = await client.request({ path: '/status', method: 'GET', headers: { ...HEADERS, accept: 'application/json' } });
    return ((await answer.body.json()) as { measured: unknown[] }).measured;
  }

  it('traffic through one worker moves the figures on both, and both rank the same candidate first', async () => {
    const workers = await oneConnectionPerWorker();
    const [[busyName, busy], [idleName, idle]] = [...workers] as [[string, Client], [string, Client]];
    expect(await measured(idle!)).toEqual([]);

    router.fakes.openai.setReply({ latencyMs: 250 });
    router.fakes.anthropic.setReply({ latencyMs: 5 });
    router.fakes.gemini.setReply({ latencyMs: 120 });
    const served: string[] = [];
    for (let i = 0; i < 6; i++) served.push(await chat(busy!, 'router/measured'));
    // Each unmeasured candidate goes first once; then the fastest leads.
    expect(served.slice(3)).toEqual(['anthropic', 'anthropic', 'anthropic']);
    // A failure counts too: openai fails once on the tier route, anthropic takes it.
    router.fakes.openai.failNext({ kind: 'status', status: 503 });
    expect(await chat(busy!, 'router/frontier')).toBe('anthropic');

    // Within one sync interval (1 s) and a round trip, the idle worker holds the same figures.
    await expect
      .poll(async () => JSON.stringify(await measured(idle!)) === JSON.stringify(await measured(busy!)) && (await measured(idle!)).length === 3, { timeout: 5000, interval: 200 })
      .toBe(true);
    const figures = (await measured(idle!)) as Array<{ provider: string; samples: number; errorRate: number; ttfbMs: number }>;
    expect(figures.map((entry) => [entry.provider, entry.samples])).toEqual([
      ['anthropic', 5],
      ['gemini', 1],
      ['openai', 2],
    ]);
    expect(figures.find((entry) => entry.provider === 'openai')!.errorRate).toBeGreaterThan(0);
    expect(figures.find((entry) => entry.provider === 'anthropic')!.ttfbMs).toBeLessThan(figures.find((entry) => entry.provider === 'gemini')!.ttfbMs);

    // The worker that served none of it ranks by the shared figures: the same leader, with no probing of its own.
    const before = router.fakes.openai.requests.length + router.fakes.gemini.requests.length;
    for (let i = 0; i < 3; i++) expect(await chat(idle!, 'router/measured')).toBe('anthropic');
    expect(router.fakes.openai.requests.length + router.fakes.gemini.requests.length).toBe(before);
    expect([busyName, idleName].sort()).toEqual(['router:worker-1', 'router:worker-2']);
    for (const client of workers.values()) await client.close();
  });

  it('both workers rank the same after traffic through one turns the order and brings the candidates within the hysteresis margin', async () => {
    const workers = await oneConnectionPerWorker();
    const [busy, idle] = [...workers.values()].map((client) => ({ chat: () => chat(client, HYSTERESIS_ROUTE.id), measured: async () => (await measured(client)) as any })) as [any, any];
    await turnAndHold(busy, idle, router.fakes);
    for (const client of workers.values()) await client.close();
  });
});

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
