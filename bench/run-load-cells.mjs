/**
 * Load at one concurrency against several targets, measured in interleaved slices: after a warm-up of
 * each target, every round gives each target one short autocannon run in turn (direct, proxy, router,
 * direct, proxy, router, …), and a target's figures add up its slices. Anything that drifts on the
 * machine during the cell (another process, CPU frequency, a GC-heavy moment) is then spread over all
 * targets instead of landing on whichever ran at that moment, so ratios between targets stay stable.
 *
 * Per slice, the CPU time of each watched process is sampled just before and just after. Latencies
 * come from autocannon's per-response events at full precision (its own histogram rounds to whole
 * milliseconds, too coarse for a 1 ms goal); the first response of each connection is left out, as it
 * pays for the new TCP connection of that slice.
 */
import autocannon from 'autocannon';
import { readProcStats } from './read-proc-stats.mjs';
import { summarizeLatencies } from './summarize-latencies.mjs';

/**
 * @param {Array<{ label: string, url: string, headers: Record<string, string>, body: string, watch?: Record<string, number> }>} targets
 *   watch: name → pid of the processes whose CPU time is counted against this target's requests
 * @param {{ connections: number, warmupS: number, rounds: number, sliceS: number }} options
 * @returns {Promise<Record<string, { connections: number, requests: number, rps: number, p50: number, p99: number,
 *   failures: number, cpuMsPerRequest: Record<string, number> }>>}
 */
export async function runLoadCells(targets, { connections, warmupS, rounds, sliceS }) {
  const totals = new Map(targets.map((t) => [t.label, { latencies: [], requests: 0, seconds: 0, failures: 0, cpuMs: {} }]));
  if (warmupS > 0) for (const target of targets) await autocannon({ ...loadOptions(target, connections), duration: warmupS });
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) await runSlice(target, connections, sliceS, totals.get(target.label));
  }
  return Object.fromEntries(
    targets.map(({ label }) => {
      const total = totals.get(label);
      const cpuMsPerRequest = Object.fromEntries(Object.entries(total.cpuMs).map(([name, ms]) => [name, total.requests > 0 ? ms / total.requests : NaN]));
      const { p50, p99 } = summarizeLatencies(total.latencies);
      return [label, { connections, requests: total.requests, rps: total.requests / total.seconds, p50, p99, failures: total.failures, cpuMsPerRequest }];
    }),
  );
}

async function runSlice(target, connections, seconds, total) {
  const watch = target.watch ?? {};
  const seen = new WeakSet();
  const before = cpuOf(watch);
  const tracker = autocannon({ ...loadOptions(target, connections), duration: seconds });
  tracker.on('response', (client, statusCode, _bytes, responseTime) => {
    if (statusCode < 200 || statusCode >= 300) return;
    total.requests += 1;
    if (seen.has(client)) total.latencies.push(responseTime);
    else seen.add(client);
  });
  const result = await tracker;
  const after = cpuOf(watch);
  total.seconds += result.duration || seconds;
  total.failures += result.non2xx + result.errors + result.timeouts;
  for (const name of Object.keys(watch)) total.cpuMs[name] = (total.cpuMs[name] ?? 0) + after[name] - before[name];
}

function loadOptions({ url, headers, body }, connections) {
  return { url, method: 'POST', headers, body, connections, pipelining: 1, timeout: 10 };
}

function cpuOf(watch) {
  return Object.fromEntries(Object.entries(watch).map(([name, pid]) => [name, readProcStats(pid).cpuMs]));
}
