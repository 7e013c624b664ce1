/**
 * `node bench/compare-shared-windows.mjs` (after `npm run build`): how cluster workers could share the
 * per-minute windows, measured the way they would run: 2 worker processes (node:cluster) each making
 * BENCH_DECISIONS admissions, BENCH_IN_FLIGHT at a time, over 1,000 accounts. Options:
 *   memory   each worker's own window (the floor; not shared, so not exact across workers)
 *   primary  the windows in the primary, one IPC round trip per decision (what cluster mode uses)
 *   sqlite   a sliding-window table in the shared SQLite file, one IMMEDIATE transaction per decision
 *            (a prototype here: a delete, a count and an insert, like the Redis script)
 *   redis    the Redis limiter (only with ROUTER_BENCH_REDIS_URL; Redis's own CPU is not counted)
 * Reports decisions/s, CPU µs per decision (both workers + the primary) and decision latency p50/p99.
 * docs/limits.md quotes a run. Env: BENCH_DECISIONS (20000), BENCH_IN_FLIGHT (32), ROUTER_BENCH_REDIS_URL.
 */
import cluster from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { processChannel } from '../dist/stores/cluster/cluster-channel.js';
import { createPrimaryRateLimiter } from '../dist/stores/cluster/create-primary-rate-limiter.js';
import { serveRateLimits } from '../dist/stores/cluster/serve-rate-limits.js';
import { createMemoryRateLimiter } from '../dist/stores/memory/create-memory-rate-limiter.js';
import { rateDecision } from '../dist/stores/memory/rate-decision.js';

const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 20_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const WORKERS = 2;
const ACCOUNTS = 1000;
const LIMIT = 1_000_000;
const OPTIONS = ['memory', 'primary', 'sqlite', ...(process.env.ROUTER_BENCH_REDIS_URL ? ['redis'] : [])];

/** The SQLite option: the same exact sliding-window log as the Redis script, as one IMMEDIATE transaction. */
function createSqliteWindows(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS rate_window (account TEXT NOT NULL, at_ms REAL NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT)');
  db.exec('CREATE INDEX IF NOT EXISTS rate_window_account ON rate_window (account, at_ms)');
  const drop = db.prepare('DELETE FROM rate_window WHERE account = ? AND at_ms <= ?');
  const state = db.prepare('SELECT COUNT(*) AS count, MIN(at_ms) AS oldest FROM rate_window WHERE account = ?');
  const insert = db.prepare('INSERT INTO rate_window (account, at_ms) VALUES (?, ?)');
  const admit = db.transaction((account, limit, nowMs) => {
    drop.run(account, nowMs - 60_000);
    const { count, oldest } = state.get(account);
    const allowed = count < limit;
    if (allowed) insert.run(account, nowMs);
    return rateDecision({ allowed, limit, count: allowed ? count + 1 : count, oldestMs: oldest ?? nowMs, nowMs });
  });
  return { admit: async (account, limit, nowMs) => admit.immediate(account, limit, nowMs), close: async () => db.close() };
}

async function openLimiter(option, workDir) {
  if (option === 'memory') return createMemoryRateLimiter();
  if (option === 'primary') return createPrimaryRateLimiter({ channel: processChannel() });
  if (option === 'sqlite') return createSqliteWindows(join(workDir, 'windows.db'));
  const { createRedisRateLimiter } = await import('../dist/stores/redis/create-redis-rate-limiter.js');
  return createRedisRateLimiter({ url: process.env.ROUTER_BENCH_REDIS_URL, keyPrefix: `bench-windows-${process.pid}:` });
}

async function runWorker() {
  const { option, workDir } = JSON.parse(process.env.BENCH_WINDOWS_JOB);
  const limiter = await openLimiter(option, workDir);
  const latencies = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const lane = async () => {
    while (next < DECISIONS) {
      const account = `acct_${(next++ * 7919) % ACCOUNTS}`;
      const t0 = performance.now();
      await limiter.admit(account, LIMIT, Date.now());
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const wallMs = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  await limiter.close();
  // Disconnect only once the (large) result has been written, or it can be lost.
  process.send({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, latencies }, () => process.disconnect());
}

async function runOption(option, workDir) {
  const windows = serveRateLimits(createMemoryRateLimiter());
  const cpuBefore = process.cpuUsage();
  const results = await new Promise((resolve, reject) => {
    const collected = [];
    for (let i = 0; i < WORKERS; i++) {
      const worker = cluster.fork({ BENCH_WINDOWS_JOB: JSON.stringify({ option, workDir }) });
      worker.on('message', (message) => {
        if (windows(message, (answer) => worker.send(answer))) return;
        collected.push(message);
        if (collected.length === WORKERS) resolve(collected);
      });
      worker.on('exit', (code) => code !== 0 && reject(new Error(`${option}: a worker exited with code ${code}`)));
    }
  });
  const primaryCpu = process.cpuUsage(cpuBefore);
  const latencies = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
  const total = DECISIONS * WORKERS;
  const cpuMs = results.reduce((sum, result) => sum + result.cpuMs, 0) + (primaryCpu.user + primaryCpu.system) / 1000;
  return {
    option,
    decisionsPerSecond: total / (Math.max(...results.map((result) => result.wallMs)) / 1000),
    cpuUsPerDecision: (cpuMs * 1000) / total,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)],
    p99Ms: latencies[Math.floor(latencies.length * 0.99)],
  };
}

if (cluster.isWorker) {
  await runWorker();
} else {
  const workDir = mkdtempSync(join(tmpdir(), 'llm-router-windows-'));
  try {
    const rows = [];
    for (const option of OPTIONS) rows.push(await runOption(option, workDir));
    console.log(`| option | decisions/s | CPU µs/decision | p50 ms | p99 ms |  (${WORKERS} workers × ${DECISIONS} decisions, ${IN_FLIGHT} in flight each)`);
    console.log('|---|---|---|---|---|');
    for (const row of rows) {
      console.log(`| ${row.option} | ${row.decisionsPerSecond.toFixed(0)} | ${row.cpuUsPerDecision.toFixed(1)} | ${row.p50Ms.toFixed(3)} | ${row.p99Ms.toFixed(3)} |`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
