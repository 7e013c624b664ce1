/**
 * The noisy neighbour (issue 20): how much one account holding its plan's whole in-flight cap of slow
 * streams adds to another account's latency on the same router. Loopback only, bounded.
 *
 * One router (SQLite, memory limiter) in front of the fake upstream; two Max accounts. The quiet one
 * sends BENCH_NOISY_REQUESTS (300) chat requests one after another (20 warm-up first) and its p50 is
 * taken: alone, then while the noisy account holds BENCH_NOISY_STREAMS (300) slow streams at once (its
 * provider key makes the fake hold them open: fake-upstream.mjs), of which the cap admits 200 and
 * refuses the rest, then with a second noisy account doing the same (400 streams held, past the 256
 * connections per provider the upstream pool used to allow). Goal: the quiet account's added p50 within
 * 1 ms of its quiet figure. Writes bench/results/noisy-neighbour.md.
 *
 *   npm run build && node bench/measure-noisy-neighbour.mjs
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boundedRun } from './run-bounded.mjs';
import { routerCheckout } from './router-checkout.mjs';
import { spawnComponent } from './spawn-component.mjs';
import { startRouterUnderTest } from './start-router-under-test.mjs';
import { summarizeLatencies } from './summarize-latencies.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const requests = Number(process.env.BENCH_NOISY_REQUESTS ?? 300);
const streams = Number(process.env.BENCH_NOISY_STREAMS ?? 300);
const bench = boundedRun('noisy-neighbour', 240_000);

await bench.run(async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-noisy-'));
  bench.onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  const upstream = await spawnComponent({ name: 'fake-upstream', args: [join(benchDir, 'fake-upstream.mjs')], env: { ...process.env }, logPath: join(workDir, 'fake.log') });
  bench.onCleanup(upstream.stop);
  const upstreamBaseUrl = `http://127.0.0.1:${upstream.ready.port}/v1`;
  const router = await startRouterUnderTest({ repoDir: routerCheckout(), workDir, name: 'router', upstreamBaseUrl, storage: `sqlite:${join(workDir, 'router.db')}` });
  bench.onCleanup(router.component.stop);
  const noisyKey = async (n) => {
    const { account } = await router.cli(['accounts', 'create', '--email', `noisy${n}@example.com`, '--plan', 'max']);
    const { key } = await router.cli(['keys', 'create', '--account', account.id, '--name', 'noisy']);
    await router.cli(['provider-keys', 'set', '--account', account.id, '--provider', 'openai', '--key-stdin'], `sk-bench-slow-${n}`);
    return key;
  };
  const noisy = [await noisyKey(1), await noisyKey(2)];

  const post = (key, body, signal) =>
    fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      signal,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'llm-router-bench/1.0' },
      body: JSON.stringify({ model: 'router/frontier', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  const quietP50 = async () => {
    const times = [];
    for (let i = 0; i < requests + 20; i++) {
      const started = performance.now();
      const response = await post(router.apiKey, {});
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the quiet account got ${response.status}`);
      if (i >= 20) times.push(performance.now() - started);
    }
    return summarizeLatencies(times);
  };
  /** Opens `streams` slow streams for `key` and resolves once each was admitted (first bytes read) or refused. */
  const hold = async (key, stop) => {
    const outcomes = await Promise.all(
      Array.from({ length: streams }, async () => {
        const response = await post(key, { stream: true }, stop.signal).catch(() => undefined);
        if (!response) return 'failed';
        if (response.status !== 200) return (await response.json()).error?.code ?? String(response.status);
        const reader = response.body.getReader();
        await reader.read();
        stop.signal.addEventListener('abort', () => reader.cancel().catch(() => undefined));
        return 'held';
      }),
    );
    const counts = {};
    for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
    return counts;
  };

  const rows = [];
  rows.push({ scenario: 'quiet account alone', held: {}, ...(await quietP50()) });
  const stops = [];
  for (const [n, key] of noisy.entries()) {
    const stop = new AbortController();
    stops.push(stop);
    bench.onCleanup(() => stop.abort());
    const held = await hold(key, stop);
    rows.push({ scenario: `while ${n + 1} noisy account${n ? 's' : ''} hold their cap of slow streams`, held, ...(await quietP50()) });
  }
  for (const stop of stops) stop.abort();

  const base = rows[0].p50;
  const lines = [
    '# Noisy neighbour',
    '',
    `${new Date().toISOString()}: the quiet account's p50 over ${requests} sequential chat requests (20 ms fake upstream), while Max accounts each try to hold ${streams} slow streams. Goal: added p50 ≤ 1 ms.`,
    '',
    '| scenario | noisy streams (per account) | p50 ms | p99 ms | added p50 ms | goal |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => {
      const added = row.p50 - base;
      const held = Object.entries(row.held).map(([what, n]) => `${what} ${n}`).join(', ') || '–';
      return `| ${row.scenario} | ${held} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${added.toFixed(2)} | ${row === rows[0] ? '' : added <= 1 ? 'pass' : 'FAIL'} |`;
    }),
  ];
  mkdirSync(join(benchDir, 'results'), { recursive: true });
  writeFileSync(join(benchDir, 'results', 'noisy-neighbour.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
});
