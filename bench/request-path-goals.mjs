/**
 * Issue 35's goals (a lighter request path), judged from one `npm run bench` run: every figure is the
 * router against the bare parsing proxy measured beside it in the same run. The CLI's start-up goal is
 * judged by cli-startup.mjs, the last stage of `npm run bench`.
 */
import { allocationRatios } from './measure-allocations.mjs';

export const REQUEST_PATH_GOALS = {
  // Router CPU per request ÷ the bare proxy's, at 16 and 128 connections.
  cpuChatAndResponses: 1.6,
  cpuStreams: 1.3,
  cpuLevels: [16, 128],
  // Router req/s ÷ the proxy's with an instant mock, at 64 connections.
  instantThroughput: 0.6,
  // Router bytes allocated per request ÷ the proxy's, chat and streams.
  allocation: 1.8,
  peakRssMb: 180,
  // Router added p50 − the proxy's added p50, at 1 connection.
  addedP50OverProxyMs: 0.3,
};

const ratio = (value) => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const verdict = (pass) => (pass ? 'PASS' : 'FAIL');
const cpuRatios = (cells, levels) => levels.map((c) => cells?.[c] && cells[c].router.gatewayCpuMs / cells[c].proxy.gatewayCpuMs);

/** The rows of the report's issue-35 table: [metric, measured, goal, result]. */
export function requestPathGoalRows(results) {
  const goals = REQUEST_PATH_GOALS;
  const levels = goals.cpuLevels;
  const cpuRow = (label, cells, goal) => {
    const ratios = cpuRatios(cells, levels);
    return [`CPU per request router ÷ bare proxy, ${label}, c=${levels.join('/')}`, ratios.map(ratio).join(' / '), `≤ ${goal}`, verdict(ratios.every((x) => x <= goal))];
  };
  const rows = [
    cpuRow('chat', results.cells, goals.cpuChatAndResponses),
    cpuRow('Responses (/v1/responses)', results.responses?.cells, goals.cpuChatAndResponses),
    cpuRow('streams', results.streamCells, goals.cpuStreams),
  ];
  const instant = results.instant;
  rows.push([
    `throughput router ÷ bare proxy, instant mock, c=${instant?.connections ?? 64} (req/s ${instant ? `${instant.cells.router.rps.toFixed(0)} / ${instant.cells.proxy.rps.toFixed(0)}` : 'n/a'})`,
    ratio(instant?.throughputVsProxy),
    `≥ ${goals.instantThroughput}`,
    verdict(instant?.throughputVsProxy >= goals.instantThroughput),
  ]);
  if (results.allocations) {
    const { chat, stream } = allocationRatios(results.allocations);
    const kb = (bytes) => (bytes / 1024).toFixed(1);
    rows.push([
      `bytes allocated per request router ÷ bare proxy, chat / streams (KB ${kb(chat.router)} / ${kb(chat.proxy)}, ${kb(stream.router)} / ${kb(stream.proxy)})`,
      `${ratio(chat.ratio)} / ${ratio(stream.ratio)}`,
      `≤ ${goals.allocation}`,
      verdict(chat.ratio <= goals.allocation && stream.ratio <= goals.allocation),
    ]);
  } else {
    rows.push(['bytes allocated per request router ÷ bare proxy', 'not measured', `≤ ${goals.allocation}`, 'FAIL']);
  }
  rows.push(['peak RSS of the router (VmHWM, after chat and streams up to 128 connections)', `${results.peakRssMb.toFixed(1)} MB`, `≤ ${goals.peakRssMb} MB`, verdict(results.peakRssMb <= goals.peakRssMb)]);
  const at1 = results.cells[1];
  const overProxy = at1 ? at1.router.p50 - at1.proxy.p50 : NaN;
  rows.push(['added p50 at c=1: router − bare proxy', Number.isFinite(overProxy) ? `${overProxy.toFixed(3)} ms` : 'n/a', `≤ ${goals.addedP50OverProxyMs} ms`, verdict(overProxy <= goals.addedP50OverProxyMs)]);
  return rows;
}

/** The issue-35 table and the measurements only it uses (Responses, the instant mock, allocation), as markdown lines. */
export function requestPathSections(results, table) {
  const ms = (value) => `${value.toFixed(2)} ms`;
  const loadRows = (cells, levels, kind) =>
    levels.flatMap((c) => ['proxy', 'router'].map((label) => {
      const cell = cells[c][label];
      return [label, kind, c, cell.rps.toFixed(0), ms(cell.p50), ms(cell.p99), cell.gatewayCpuMs.toFixed(3), (cell.gatewayCpuMs / cells[c].proxy.gatewayCpuMs).toFixed(2), cell.failures];
    }));
  const rows = [
    ...(results.responses ? loadRows(results.responses.cells, results.responses.connections, 'Responses, 20 ms mock') : []),
    ...(results.instant ? loadRows({ [results.instant.connections]: results.instant.cells }, [results.instant.connections], 'chat, instant mock') : []),
  ];
  return [
    '## Issue 35 goals (a lighter request path; ratios to the bare proxy in this run)',
    '',
    table(['metric', 'measured', 'goal', 'result'], requestPathGoalRows(results)),
    '',
    ...(rows.length > 0
      ? [
          '### Responses load and the instant mock',
          '',
          table(['target', 'request', 'connections', 'req/s', 'p50', 'p99', 'CPU ms/req', 'CPU/req vs bare proxy', 'failed'], rows),
          '',
        ]
      : []),
  ];
}
