/**
 * The benchmark's report as markdown: a summary table of the router against the baselines measured in
 * the same run, with the verdict of each goal, followed by the measurements it is computed from.
 */

const GOALS = {
  cpuPerRequestVsProxy: 1.5,
  throughputVsDirectAt128: 0.9,
  addedP50AtC1Ms: 1,
  addedTtfbP50Ms: 1,
  peakRssMb: 150,
};

const ms = (value, digits = 2) => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : 'n/a');
// Figures checked against a goal get a third decimal, so "1.00 ms … FAIL" or "0.90 … FAIL" cannot happen.
const addedMs = (value) => ms(value, 3);
const ratio = (value) => num(value, 3);
const num = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const verdict = (pass) => (pass ? 'PASS' : 'FAIL');
const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (header, rows) => [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');

/** Router-against-baseline ratios for one concurrency level. */
function compareAt(cells, connections) {
  const { direct, proxy, router } = cells[connections];
  return {
    addedP50: router.p50 - direct.p50,
    addedP99: router.p99 - direct.p99,
    proxyAddedP50: proxy.p50 - direct.p50,
    throughputRatio: router.rps / direct.rps,
    proxyThroughputRatio: proxy.rps / direct.rps,
    cpuRatio: router.gatewayCpuMs / proxy.gatewayCpuMs,
  };
}

export function renderReport(results) {
  const levels = results.concurrency;
  const compared = Object.fromEntries(levels.map((c) => [c, compareAt(results.cells, c)]));
  const perLevel = (pick, format) => levels.map((c) => format(pick(compared[c]))).join(' / ');
  const levelsLabel = `c=${levels.join('/')}`;
  const top = levels.at(-1);
  const cpuFailing = levels.filter((c) => !(compared[c].cpuRatio <= GOALS.cpuPerRequestVsProxy));
  const streamAdded = results.stream.router.p50 - results.stream.direct.p50;

  const summary = [
    [`added latency p50 (router − direct), ${levelsLabel}`, perLevel((x) => x.addedP50, addedMs), `≤ ${GOALS.addedP50AtC1Ms} ms at c=1`, verdict(compared[1]?.addedP50 <= GOALS.addedP50AtC1Ms)],
    [`added latency p99 (router − direct), ${levelsLabel}`, perLevel((x) => x.addedP99, ms), '—', 'info'],
    [`throughput router/direct, ${levelsLabel}`, perLevel((x) => x.throughputRatio, ratio), `≥ ${GOALS.throughputVsDirectAt128} at c=${top}`, verdict(compared[top].throughputRatio >= GOALS.throughputVsDirectAt128)],
    [`CPU per request router/bare proxy, ${levelsLabel}`, perLevel((x) => x.cpuRatio, ratio), `≤ ${GOALS.cpuPerRequestVsProxy} at every level`, cpuFailing.length === 0 ? 'PASS' : `FAIL (c=${cpuFailing.join(', ')})`],
    ['peak RSS of the router (VmHWM)', `${num(results.peakRssMb, 1)} MB`, `≤ ${GOALS.peakRssMb} MB`, verdict(results.peakRssMb <= GOALS.peakRssMb)],
    ['stream added time to first byte p50 (router − direct)', addedMs(streamAdded), `≤ ${GOALS.addedTtfbP50Ms} ms`, verdict(streamAdded <= GOALS.addedTtfbP50Ms)],
    ...sharedSummaryRows(results.shared),
  ];

  const failed = levels.flatMap((c) => Object.entries(results.cells[c]).filter(([, cell]) => cell.failures > 0).map(([target]) => `${target} c=${c}`));
  return [
    `# Router benchmark — ${results.meta.date}`,
    '',
    ...(failed.length > 0 ? [`**Warning: requests failed in ${failed.join(', ')}; the figures of those cells do not measure the normal path.**`, ''] : []),
    `Node ${results.meta.node}, ${results.meta.cpus} CPUs; upstream latency ${results.meta.latencyMs} ms; each cell ${results.meta.warmupS} s warm-up + ${results.meta.durationS} s measured; all on 127.0.0.1.`,
    '',
    '## Summary',
    '',
    table(['metric', 'measured', 'goal', 'result'], summary),
    '',
    '## Load matrix (POST /v1/chat/completions, non-stream)',
    '',
    table(
      ['target', 'connections', 'req/s', 'p50', 'p99', 'CPU ms/req (gateway)', 'CPU ms/req (upstream)', 'failed'],
      levels.flatMap((c) =>
        ['direct', 'proxy', 'router'].map((target) => {
          const cell = results.cells[c][target];
          return [target, c, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), target === 'direct' ? '—' : num(cell.gatewayCpuMs, 3), num(cell.upstreamCpuMs, 3), cell.failures];
        }),
      ),
    ),
    '',
    '## Router against the baselines',
    '',
    table(
      ['connections', 'added p50', 'added p99', 'bare proxy added p50', 'throughput router/direct', 'throughput proxy/direct', 'CPU/req router/proxy'],
      levels.map((c) => {
        const x = compared[c];
        return [c, ms(x.addedP50), ms(x.addedP99), ms(x.proxyAddedP50), num(x.throughputRatio), num(x.proxyThroughputRatio), num(x.cpuRatio)];
      }),
    ),
    '',
    `## Stream time to first byte (stream: true, one request at a time, ${results.stream.direct.count} per target)`,
    '',
    table(
      ['target', 'TTFB p50', 'TTFB p99', 'added p50 vs direct'],
      ['direct', 'proxy', 'router'].map((target) => {
        const s = results.stream[target];
        return [target, ms(s.p50), ms(s.p99), target === 'direct' ? '—' : ms(s.p50 - results.stream.direct.p50)];
      }),
    ),
    '',
    ...renderShared(results.shared),
  ].join('\n');
}

function sharedSummaryRows(shared) {
  const pgRedis = shared.variants?.find((v) => v.label === 'postgres+redis');
  const base = shared.variants?.find((v) => v.label === 'sqlite+memory');
  if (!pgRedis || !base) return [['shared limits (PostgreSQL + Redis) vs SQLite + memory, c=16', `skipped: ${shared.skipped ?? 'not measured'}`, '—', 'info']];
  return [
    [`shared limits: added p50, PostgreSQL + Redis vs SQLite + memory, c=${shared.connections}`, ms(pgRedis.cell.p50 - base.cell.p50), '—', 'info'],
    [`shared limits: CPU/req of the router, PostgreSQL + Redis vs SQLite + memory, c=${shared.connections}`, `${num(pgRedis.cell.gatewayCpuMs, 3)} vs ${num(base.cell.gatewayCpuMs, 3)} ms (×${num(pgRedis.cell.gatewayCpuMs / base.cell.gatewayCpuMs)})`, '—', 'info'],
  ];
}

function renderShared(shared) {
  const heading = `## Quota and rate-limit stores (router, c=${shared.connections ?? 16})`;
  if (!shared.variants) return [heading, '', `Skipped: ${shared.skipped}.`, ''];
  const base = shared.variants[0].cell;
  return [
    heading,
    '',
    'Same router and load; only the store holding accounts, keys and monthly counts and the per-minute limiter change.',
    '',
    table(
      ['storage + limiter', 'req/s', 'p50', 'p99', 'added p50 vs first row', 'router CPU ms/req', 'CPU/req vs first row', 'failed'],
      shared.variants.map(({ label, cell }) => [
        label, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), ms(cell.p50 - base.p50), num(cell.gatewayCpuMs, 3), num(cell.gatewayCpuMs / base.gatewayCpuMs), cell.failures,
      ]),
    ),
    '',
  ];
}
