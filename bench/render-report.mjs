import { ADAPTER_GOAL_CPU_RATIO } from './measure-adapters.mjs';
import { LEDGER_GOAL_CPU_RATIO } from './measure-ledger.mjs';
import { requestPathSections } from './request-path-goals.mjs';

/**
 * The benchmark's report as markdown: a summary table of the router against the baselines measured in
 * the same run, with the verdict of each goal, followed by the measurements it is computed from.
 * The goals are ratios to the bare proxy measured alongside (issue 14): the floor any Node gateway pays;
 * issue 35's stricter goals get a table of their own (request-path-goals.mjs).
 */

const GOALS = {
  // Router CPU per request ÷ the bare proxy's, at these levels, for chat and for streams.
  cpuPerRequestVsProxy: 1.3,
  cpuLevels: [16, 128],
  throughputVsDirectAt128: 0.9,
  // Router added p50 − the bare proxy's added p50, at 1 connection.
  addedP50OverProxyAtC1Ms: 0.5,
  // Router added p99 ÷ the bare proxy's added p99, at the top level.
  addedP99VsProxyAtTop: 2,
  // Stream added TTFB p50 − the bare proxy's, one at a time and under load.
  addedTtfbOverProxyMs: 0.5,
  peakRssMb: 150,
  // Soak: RSS at the end at most this much above the RSS after the first slice.
  soakGrowth: 1.1,
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
  const cpuVerdict = (ratios) => {
    const failing = GOALS.cpuLevels.filter((c) => !(ratios[c] <= GOALS.cpuPerRequestVsProxy));
    return failing.length === 0 ? 'PASS' : `FAIL (c=${failing.join(', ')})`;
  };
  const chatCpu = Object.fromEntries(levels.map((c) => [c, compared[c].cpuRatio]));
  const streamLevels = results.streamConcurrency ?? [];
  const streamCpu = Object.fromEntries(streamLevels.map((c) => [c, results.streamCells[c].router.gatewayCpuMs / results.streamCells[c].proxy.gatewayCpuMs]));
  const ttfbAdded = (stream, target) => stream[target].p50 - stream.direct.p50;
  const ttfbOverProxy = [results.stream, results.streamUnderLoad].filter(Boolean).map((stream) => ttfbAdded(stream, 'router') - ttfbAdded(stream, 'proxy'));
  const ttfbLabels = ['c=1', ...(results.streamUnderLoad ? [`c=${results.streamUnderLoad.connections}`] : [])].join('/');
  const p99VsProxy = compared[top].addedP99 / (results.cells[top].proxy.p99 - results.cells[top].direct.p99);

  const summary = [
    [`added latency p50 (router − direct), ${levelsLabel}`, perLevel((x) => x.addedP50, addedMs), '—', 'info'],
    [
      'added p50 at c=1: router − bare proxy (router added / proxy added)',
      `${addedMs(compared[1]?.addedP50 - compared[1]?.proxyAddedP50)} (${ms(compared[1]?.addedP50)} / ${ms(compared[1]?.proxyAddedP50)})`,
      `≤ ${GOALS.addedP50OverProxyAtC1Ms} ms`,
      verdict(compared[1]?.addedP50 - compared[1]?.proxyAddedP50 <= GOALS.addedP50OverProxyAtC1Ms),
    ],
    [`added latency p99 (router − direct), ${levelsLabel}`, perLevel((x) => x.addedP99, ms), '—', 'info'],
    [`added p99 at c=${top}: router ÷ bare proxy`, ratio(p99VsProxy), `≤ ${GOALS.addedP99VsProxyAtTop}`, verdict(p99VsProxy <= GOALS.addedP99VsProxyAtTop)],
    [`throughput router/direct, ${levelsLabel}`, perLevel((x) => x.throughputRatio, ratio), `≥ ${GOALS.throughputVsDirectAt128} at c=${top}`, verdict(compared[top].throughputRatio >= GOALS.throughputVsDirectAt128)],
    [`CPU per request router/bare proxy, chat, ${levelsLabel}`, perLevel((x) => x.cpuRatio, ratio), `≤ ${GOALS.cpuPerRequestVsProxy} at c=${GOALS.cpuLevels.join(', ')}`, cpuVerdict(chatCpu)],
    ...(streamLevels.length > 0
      ? [[`CPU per request router/bare proxy, streams, c=${streamLevels.join('/')}`, streamLevels.map((c) => ratio(streamCpu[c])).join(' / '), `≤ ${GOALS.cpuPerRequestVsProxy} at c=${GOALS.cpuLevels.join(', ')}`, cpuVerdict(streamCpu)]]
      : []),
    ['peak RSS of the router (VmHWM, after chat and streams up to 128 connections)', `${num(results.peakRssMb, 1)} MB`, `≤ ${GOALS.peakRssMb} MB`, verdict(results.peakRssMb <= GOALS.peakRssMb)],
    ...soakSummaryRows(results.soak),
    [`stream added TTFB p50: router − bare proxy, ${ttfbLabels}`, ttfbOverProxy.map(addedMs).join(' / '), `≤ ${GOALS.addedTtfbOverProxyMs} ms`, verdict(ttfbOverProxy.every((x) => x <= GOALS.addedTtfbOverProxyMs))],
    ...adapterSummaryRows(results.adapters),
    ...sharedSummaryRows(results.shared),
    ...ledgerSummaryRows(results.ledger),
    ...fusionSummaryRows(results.fusion),
  ];

  const failed = levels.flatMap((c) => Object.entries(results.cells[c]).filter(([, cell]) => cell.failures > 0).map(([target]) => `${target} c=${c}`));
  const loadTable = (cells, cellLevels) =>
    table(
      ['target', 'connections', 'req/s', 'p50', 'p99', 'CPU ms/req (gateway)', 'CPU ms/req (upstream)', 'failed'],
      cellLevels.flatMap((c) =>
        ['direct', 'proxy', 'router'].map((target) => {
          const cell = cells[c][target];
          return [target, c, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), target === 'direct' ? '—' : num(cell.gatewayCpuMs, 3), num(cell.upstreamCpuMs, 3), cell.failures];
        }),
      ),
    );
  const ttfbTable = (stream) =>
    table(
      ['target', 'TTFB p50', 'TTFB p99', 'added p50 vs direct'],
      ['direct', 'proxy', 'router'].map((target) => {
        const x = stream[target];
        return [target, ms(x.p50), ms(x.p99), target === 'direct' ? '—' : ms(x.p50 - stream.direct.p50)];
      }),
    );
  return [
    `# Router benchmark — ${results.meta.date}`,
    '',
    ...(failed.length > 0 ? [`**Warning: requests failed in ${failed.join(', ')}; the figures of those cells do not measure the normal path.**`, ''] : []),
    `Router under test: ${results.meta.router ?? 'this checkout'}. Node ${results.meta.node}, ${results.meta.cpus} CPUs; upstream latency ${results.meta.latencyMs} ms; each cell ${results.meta.warmupS} s warm-up + ${results.meta.durationS} s measured; all on 127.0.0.1.`,
    ...otherLoadLines(results.meta.otherLoad),
    '',
    '## Summary',
    '',
    table(['metric', 'measured', 'goal', 'result'], summary),
    '',
    ...requestPathSections(results, table),
    '## Load matrix (POST /v1/chat/completions, non-stream)',
    '',
    loadTable(results.cells, levels),
    '',
    '## Router against the baselines',
    '',
    table(
      ['connections', 'added p50', 'added p99', 'bare proxy added p50', 'bare proxy added p99', 'throughput router/direct', 'throughput proxy/direct', 'CPU/req router/proxy'],
      levels.map((c) => {
        const x = compared[c];
        return [c, ms(x.addedP50), ms(x.addedP99), ms(x.proxyAddedP50), ms(results.cells[c].proxy.p99 - results.cells[c].direct.p99), num(x.throughputRatio), num(x.proxyThroughputRatio), num(x.cpuRatio)];
      }),
    ),
    '',
    ...(streamLevels.length > 0 ? ['## Stream load (stream: true, whole streams)', '', loadTable(results.streamCells, streamLevels), ''] : []),
    `## Stream time to first byte (stream: true, one request at a time, ${results.stream.direct.count} per target)`,
    '',
    ttfbTable(results.stream),
    '',
    ...(results.streamUnderLoad
      ? [`## Stream time to first byte under load (${results.streamUnderLoad.connections} clients, ${results.streamUnderLoad.direct.count} streams per target)`, '', ttfbTable(results.streamUnderLoad), '']
      : []),
    ...renderSoak(results.soak),
    ...renderAdapters(results.adapters),
    ...renderShared(results.shared),
    ...renderLedger(results.ledger),
  ].join('\n');
}

function soakSummaryRows(soak) {
  if (!soak) return [['soak (BENCH_SOAK_S=300 for the 5-minute soak at 64 connections)', 'not run', '—', 'info']];
  const [, first] = soak.rssMb;
  const last = soak.rssMb.at(-1);
  return [
    [
      `soak ${soak.seconds} s at c=${soak.connections}: RSS at start → after the first slice → end`,
      `${num(soak.rssMb[0], 1)} → ${num(first, 1)} → ${num(last, 1)} MB`,
      `end ≤ ${GOALS.soakGrowth} × after the first slice`,
      verdict(last <= first * GOALS.soakGrowth),
    ],
  ];
}

function renderSoak(soak) {
  if (!soak) return [];
  return [
    `## Soak (router alone, ${soak.connections} connections, ${soak.seconds} s)`,
    '',
    `${soak.requests} requests, ${soak.failures} failed; peak RSS ${num(soak.peakRssMb, 1)} MB. RSS (VmRSS) before the first slice and after each of ten:`,
    '',
    soak.rssMb.map((mb) => num(mb, 1)).join(' → ') + ' MB',
    '',
  ];
}

function adapterSummaryRows(adapters) {
  if (!adapters) return [];
  return adapters.providers.map((provider) => {
    const ratios = ['chat', 'stream'].map((mode) => adapters.cells[mode][provider].gatewayCpuMs / adapters.cells[mode].proxy.gatewayCpuMs);
    return [
      `${provider} adapter: CPU/req router/bare proxy, chat / stream, c=${adapters.connections}`,
      ratios.map(ratio).join(' / '),
      `≤ ${ADAPTER_GOAL_CPU_RATIO}`,
      verdict(ratios.every((value) => value <= ADAPTER_GOAL_CPU_RATIO)),
    ];
  });
}

function renderAdapters(adapters) {
  if (!adapters) return [];
  return [
    `## Anthropic and Gemini adapters (router/frontier → one provider, c=${adapters.connections})`,
    '',
    'Each router translates the request, the response and every stream chunk; the bare proxy passes OpenAI chat through.',
    '',
    table(
      ['target', 'mode', 'req/s', 'p50', 'p99', 'CPU ms/req', 'CPU/req vs bare proxy', 'failed'],
      ['chat', 'stream'].flatMap((mode) =>
        ['proxy', ...adapters.providers].map((label) => {
          const cell = adapters.cells[mode][label];
          return [label, mode, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), num(cell.gatewayCpuMs, 3), num(cell.gatewayCpuMs / adapters.cells[mode].proxy.gatewayCpuMs), cell.failures];
        }),
      ),
    ),
    '',
  ];
}

const LEDGER_ON = 'ledger on';
const LEDGER_OFF = 'ledger off';

function ledgerSummaryRows(ledger) {
  if (!ledger) return [];
  const levels = ledger.connections;
  const cpu = levels.map((c) => ledger.cells[c][LEDGER_ON].gatewayCpuMs / ledger.cells[c][LEDGER_OFF].gatewayCpuMs);
  const added = (c, label) => ledger.cells[c][label].p50 - ledger.cells[c].direct.p50;
  return [
    [`usage ledger: router CPU/req on ÷ off, c=${levels.join('/')}`, cpu.map(ratio).join(' / '), `≤ ${LEDGER_GOAL_CPU_RATIO}`, verdict(cpu.every((value) => value <= LEDGER_GOAL_CPU_RATIO))],
    [`usage ledger: added p50 on / off (router − direct), c=${levels.join('/')}`, levels.map((c) => `${ms(added(c, LEDGER_ON))} / ${ms(added(c, LEDGER_OFF))}`).join(', '), 'unchanged within noise', 'info'],
  ];
}

function renderLedger(ledger) {
  if (!ledger) return [];
  const rows = ledger.connections.flatMap((c) =>
    [LEDGER_ON, LEDGER_OFF].map((label) => {
      const cell = ledger.cells[c][label];
      return [label, c, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), ms(cell.p50 - ledger.cells[c].direct.p50), num(cell.gatewayCpuMs, 3), cell.failures];
    }),
  );
  const on = ledger.ready[LEDGER_ON];
  return [
    '## Usage ledger on vs off (SQLite, memory limiter)',
    '',
    'Two fresh routers measured interleaved with the direct baseline; the only difference is `ledger.enabled`. ' +
      `After the load the ledger-on router had written ${on.written} records (${on.queued} still queued) for ${on.ok} 2xx responses, none dropped.`,
    '',
    table(['router', 'connections', 'req/s', 'p50', 'p99', 'added p50 vs direct', 'CPU ms/req', 'failed'], rows),
    '',
    table(
      ['connections', 'CPU/req on ÷ off', 'added p50 on − off'],
      ledger.connections.map((c) => [c, ratio(ledger.cells[c][LEDGER_ON].gatewayCpuMs / ledger.cells[c][LEDGER_OFF].gatewayCpuMs), ms(ledger.cells[c][LEDGER_ON].p50 - ledger.cells[c][LEDGER_OFF].p50, 3)]),
    ),
    '',
  ];
}

/**
 * Other work on the machine during the run shares its 2 cores and moves every figure: say how much there
 * was. Per-process and whole-machine CPU are accounted differently (about ±5% of the busy time, so a
 * quiet run can come out slightly negative), hence the threshold of 0.15 core before calling it disturbed.
 */
function otherLoadLines(otherLoad) {
  if (!otherLoad) return [];
  const others = Math.max(0, otherLoad.othersCpuS);
  const cores = Math.max(0, otherLoad.othersCores);
  const line =
    `CPU used by processes outside the benchmark (the PostgreSQL and Redis servers left out) during the ${num(otherLoad.wallS, 0)} s run: ` +
    `${num(others, 1)} s, ${num(cores)} cores on average (of ${num(otherLoad.busyCpuS, 0)} s busy in all; ±5% of that is accounting noise).`;
  return ['', cores > 0.15 ? `**${line} The figures are disturbed; rerun on a quiet machine to compare them.**` : line];
}

const GATE = 'postgres+redis';
const NO_GATE = 'postgres+redis no-gate';
const BASE = 'sqlite+memory';
/** a ÷ b, or n/a when b is not a positive number (an added p50 near zero makes a meaningless ratio). */
const over = (a, b) => (Number.isFinite(a) && b > 0 ? a / b : NaN);
const findVariant = (shared, label) => shared.variants?.find((v) => v.label === label);

function sharedSummaryRows(shared) {
  const base = findVariant(shared, BASE);
  const gate = findVariant(shared, GATE);
  const noGate = findVariant(shared, NO_GATE);
  if (!base || !gate || !noGate) return [['quota and rate-limit stores (PostgreSQL + Redis) vs SQLite + memory', `skipped: ${shared.skipped ?? 'not measured'}`, '—', 'info']];
  const c = `c=${shared.connections}`;
  return [
    [`stores: added p50 vs SQLite + memory, PostgreSQL + Redis gate / no gate, ${c}`, `${ms(gate.cell.p50 - base.cell.p50)} / ${ms(noGate.cell.p50 - base.cell.p50)}`, '—', 'info'],
    [
      `stores: router CPU/req, PostgreSQL + Redis gate / no gate vs SQLite + memory, ${c}`,
      `${num(gate.cell.gatewayCpuMs, 3)} / ${num(noGate.cell.gatewayCpuMs, 3)} vs ${num(base.cell.gatewayCpuMs, 3)} ms (×${num(gate.cell.gatewayCpuMs / base.cell.gatewayCpuMs)} / ×${num(noGate.cell.gatewayCpuMs / base.cell.gatewayCpuMs)})`,
      '—',
      'info',
    ],
    [
      `stores: gate ÷ no gate (PostgreSQL + Redis), ${c}: router CPU/req, PostgreSQL + Redis server CPU/req, added p50`,
      `${ratio(gate.cell.gatewayCpuMs / noGate.cell.gatewayCpuMs)}, ${ratio(over(gate.cell.serversCpuMs, noGate.cell.serversCpuMs))}, ${ratio(over(gate.cell.p50 - base.cell.p50, noGate.cell.p50 - base.cell.p50))}`,
      '—',
      'info',
    ],
  ];
}

function renderShared(shared) {
  const heading = `## Quota and rate-limit stores (router, c=${shared.connections ?? 16})`;
  if (!shared.variants) return [heading, '', `Skipped: ${shared.skipped}.`, ''];
  const base = findVariant(shared, BASE).cell;
  const servers = (cell) => (shared.watchServers ? num(cell.serversCpuMs, 3) : 'n/a');
  const quotaPath = { store: 'store, per request', 'redis-gate': 'Redis gate', 'sqlite-gate': 'SQLite gate (in memory)' };
  const lines = [
    heading,
    '',
    'Same router and load; only the store holding accounts, keys and monthly counts, the per-minute limiter and where the monthly quota is admitted change. ' +
      `Server CPU is that of every \`postgres\` and \`redis-server\` process on this machine during the target's slices${shared.watchServers ? '' : ' (n/a: the servers are not on this machine)'}.`,
    '',
    table(
      ['storage + limiter', 'monthly quota', 'req/s', 'p50', 'p99', 'added p50 vs sqlite+memory', 'router CPU ms/req', 'CPU/req vs sqlite+memory', 'PostgreSQL + Redis server CPU ms/req', 'failed'],
      shared.variants.map(({ label, quota, cell }) => [
        label, quotaPath[quota] ?? quota, num(cell.rps, 0), ms(cell.p50), ms(cell.p99), ms(cell.p50 - base.p50), num(cell.gatewayCpuMs, 3), num(cell.gatewayCpuMs / base.gatewayCpuMs), servers(cell), cell.failures,
      ]),
    ),
    '',
  ];
  const gate = findVariant(shared, GATE)?.cell;
  const noGate = findVariant(shared, NO_GATE)?.cell;
  if (gate && noGate) {
    const both = (cell) => cell.gatewayCpuMs + cell.serversCpuMs;
    const compare = (metric, g, n, format) => [metric, format(g), format(n), ratio(over(g, n))];
    lines.push(
      '### PostgreSQL + Redis: quota gate ÷ no gate',
      '',
      table(
        ['metric', 'gate (default)', 'no gate (quotaGate: false)', 'gate ÷ no gate'],
        [
          compare('req/s', gate.rps, noGate.rps, (v) => num(v, 0)),
          compare('p50', gate.p50, noGate.p50, ms),
          compare('added p50 vs sqlite+memory', gate.p50 - base.p50, noGate.p50 - base.p50, ms),
          compare('router CPU ms/req', gate.gatewayCpuMs, noGate.gatewayCpuMs, (v) => num(v, 3)),
          ...(shared.watchServers
            ? [compare('PostgreSQL + Redis server CPU ms/req', gate.serversCpuMs, noGate.serversCpuMs, (v) => num(v, 3)), compare('router + servers CPU ms/req', both(gate), both(noGate), (v) => num(v, 3))]
            : []),
        ],
      ),
      '',
    );
  }
  const limits = shared.planLimits;
  lines.push(
    '### Monthly counts after the load',
    '',
    `Plan limits in the bench: ${limits?.monthlyRequests} requests a month, ${limits?.requestsPerMinute} a minute (the gate reserves blocks of min(100, limit / 100) = 100). ` +
      'X-Quota-Used is read on GET /v1/models after the load and must lie between the 2xx responses and the requests sent (a request cut off at the end of a slice may have been counted); ' +
      'the PostgreSQL row (used / held) is read after the routers stopped, when the gate has settled what it admitted.',
    '',
    table(
      ['storage + limiter', 'requests sent', '2xx', 'X-Quota-Used', 'PostgreSQL used / held after stop'],
      shared.variants.map(({ label, quotaCount }) => [
        label,
        quotaCount.sent,
        quotaCount.ok,
        quotaCount.used,
        quotaCount.storeAfterStop ? `${quotaCount.storeAfterStop.used} / ${quotaCount.storeAfterStop.held}${quotaCount.storeAfterStop.used === quotaCount.used ? '' : ' (≠ X-Quota-Used)'}` : '—',
      ]),
    ),
    '',
  );
  return lines;
}

/** Router overhead on a router/fusion request at c=1 (bench/measure-fusion.mjs); absent in older results. */
function fusionSummaryRows(fusion) {
  if (!fusion) return [];
  const cpu = fusion.routerCpuMsPerRequest === null ? '' : `, router CPU ${num(fusion.routerCpuMsPerRequest, 2)} ms/request`;
  const critical = `critical path on the fakes p50 ${ms(fusion.direct.p50)}, router wall p50 ${ms(fusion.router.p50)}${cpu}`;
  return [[`router/fusion overhead p50 at c=1 (wall − critical path; ${critical})`, addedMs(fusion.overheadP50Ms), `≤ ${fusion.goalMs} ms`, verdict(fusion.met)]];
}
