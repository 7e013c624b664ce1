/**
 * Load at one concurrency against several targets, measured in interleaved slices: after a warm-up of
 * each target, every round gives each target one short autocannon run in turn (direct, proxy, router,
 * direct, proxy, router, …), and a target's figures add up its slices. Anything that drifts on the
 * machine during the cell (another process, CPU frequency, a GC-heavy moment) is then spread over all
 * targets instead of landing on whichever ran at that moment, so ratios between targets stay stable.
 *
 * Per slice, the CPU time of each watched process (or group of processes) is sampled just before and
 * just after. Latencies
 * come from autocannon's per-response events at full precision (its own histogram rounds to whole
 * milliseconds, too coarse for a 1 ms goal); the first response of each connection is left out, as it
 * pays for the new TCP connection of that slice.
 */
import autocannon from 'autocannon';
import { readProcStats } from './read-proc-stats.mjs';
import { summarizeLatencies } from './summarize-latencies.mjs';

/**
 * @param {Array<{ label: string, url: string, headers: Record<string, string>, body: string,
 *   watch?: Record<string, number | (() => Map<number, number>)> }>} targets
 *   watch: name → pid of a process whose CPU time is counted against this target's requests, or a
 *   function sampling a group of processes (pid → CPU ms; see read-server-cpu.mjs)
 * @param {{ connections: number, warmupS: number, rounds: number, sliceS: number }} options
 * @returns {Promise<Record<string, { connections: number, requests: number, rps: number, p50: number, p99: number,
 *   failures: number, cpuMsPerRequest: Record<string, number>, sent: number, ok: number }>>}
 *   sent / ok: every request sent and every 2xx response, warm-up included (what the target counted)
 */
export async function runLoadCells(targets, { connections, warmupS, rounds, sliceS }) {
  const totals = new Map(targets.map((t) => [t.label, { latencies: [], requests: 0, seconds: 0, failures: 0, cpuMs: {}, sent: 0, ok: 0 }]));
  if (warmupS > 0) {
    for (const target of targets) {
      const result = await autocannon({ ...loadOptions(target, connections), duration: warmupS });
      addSentAndOk(totals.get(target.label), result);
    }
  }
  for (let round = 0; round < rounds; round++) {
    // Each round starts with the next target: whatever the previous slice leaves behind on the machine
    // (a database server still flushing, a GC) lands on every target in turn, not always on the first.
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + round) % targets.length];
      await runSlice(target, connections, sliceS, totals.get(target.label));
    }
  }
  return Object.fromEntries(
    targets.map(({ label }) => {
      const total = totals.get(label);
      const cpuMsPerRequest = Object.fromEntries(Object.entries(total.cpuMs).map(([name, ms]) => [name, total.requests > 0 ? ms / total.requests : NaN]));
      const { p50, p99 } = summarizeLatencies(total.latencies);
      return [label, { connections, requests: total.requests, rps: total.requests / total.seconds, p50, p99, failures: total.failures, cpuMsPerRequest, sent: total.sent, ok: total.ok }];
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
  addSentAndOk(total, result);
  for (const name of Object.keys(watch)) total.cpuMs[name] = (total.cpuMs[name] ?? 0) + cpuDelta(before[name], after[name]);
}

function addSentAndOk(total, result) {
  total.sent += result.requests.sent;
  total.ok += result['2xx'];
}

function loadOptions({ url, headers, body }, connections) {
  return { url, method: 'POST', headers, body, connections, pipelining: 1, timeout: 10 };
}

function cpuOf(watch) {
  return Object.fromEntries(Object.entries(watch).map(([name, what]) => [name, typeof what === 'function' ? what() : readProcStats(what).cpuMs]));
}

/** A group's CPU: what each process that is still there used since the first sample (a new one: since it started). */
function cpuDelta(before, after) {
  if (typeof after === 'number') return after - before;
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}
