/**
 * CLI start-up (issue 35: `router --help` and `router check` on the shipped config in at most 0.35 s):
 * each command run N times as a fresh `node bin/router …` process, the commands (and the builds, with
 * BENCH_BASE_DIR) taking turns run by run so whatever else the machine does lands on all of them alike.
 * Reports the median wall time (the goal's measure), the fastest run, and the mean CPU time (user +
 * system of the child, from this process's cutime/cstime, which moves less than wall time when the
 * machine is busy), beside `node -e ''` (what Node's own start costs here). The check must pass: a
 * command that fails is a broken build, not a figure. Part of `npm run bench`; prints the table and
 * writes it to bench/results/cli-startup.md. Exits 0 whenever it could run, goals met or not.
 *
 * Env: BENCH_CLI_RUNS (15), BENCH_ROUTER_DIR (measure another checkout instead of this one),
 *      BENCH_BASE_DIR (another checkout with dist/ built, measured interleaved as the "before").
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMachineCpuWatch } from './read-machine-cpu.mjs';
import { commitOf, routerCheckout } from './router-checkout.mjs';

const GOAL_MS = 350;
const WARMUP_RUNS = 2;
const runs = Number(process.env.BENCH_CLI_RUNS ?? 15);
const benchDir = dirname(fileURLToPath(import.meta.url));

const builds = [{ name: 'this build', dir: routerCheckout() }];
if (process.env.BENCH_BASE_DIR) builds.push({ name: 'base', dir: resolve(process.env.BENCH_BASE_DIR) });

// Each build checks its own shipped config/, with nothing from this shell's environment pointing elsewhere.
const cases = [
  { command: "node -e ''", build: undefined, args: ['-e', ''] },
  ...builds.flatMap((build) => [
    { command: 'router --help', build, args: [join(build.dir, 'bin/router'), '--help'] },
    { command: 'router check', build, args: [join(build.dir, 'bin/router'), 'check', '--config', join(build.dir, 'config')] },
  ]),
].map((entry) => ({ ...entry, wallMs: [], cpuMs: [] }));

const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ROUTER_')));

/** CPU time of every child this process has waited for (cutime + cstime, /proc/self/stat fields 16 and 17), in ms. */
function reapedChildrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function runOnce(entry) {
  const cpuBefore = reapedChildrenCpuMs();
  const started = performance.now();
  const result = spawnSync(process.execPath, entry.args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const wallMs = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${entry.command} (${entry.build?.dir ?? 'node'}) exited ${result.status ?? result.signal}: ${(result.stderr || result.stdout).trim().split('\n')[0]}`);
  }
  return { wallMs, cpuMs: reapedChildrenCpuMs() - cpuBefore };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

const machine = startMachineCpuWatch();
for (let round = 0; round < WARMUP_RUNS + runs; round++) {
  // Rotated each round, so no command always runs first (after this process's own idle moment).
  for (let i = 0; i < cases.length; i++) {
    const entry = cases[(round + i) % cases.length];
    const { wallMs, cpuMs } = runOnce(entry);
    if (round < WARMUP_RUNS) continue;
    entry.wallMs.push(wallMs);
    entry.cpuMs.push(cpuMs);
  }
}
const load = machine.finish([]);

const rows = cases.map((entry) => {
  const wall = median(entry.wallMs);
  const goal = entry.build ? (wall <= GOAL_MS ? 'met' : 'NOT met') : '—';
  const build = entry.build ? `${entry.build.name} (${commitOf(entry.build.dir)})` : '—';
  return `| ${entry.command} | ${build} | ${wall.toFixed(0)} | ${Math.min(...entry.wallMs).toFixed(0)} | ${mean(entry.cpuMs).toFixed(0)} | ${goal} |`;
});
const busy = load.othersCores > 0.15 ? `**${load.othersCores.toFixed(2)}**` : load.othersCores.toFixed(2);
const report = [
  `## CLI start-up (median of ${runs} runs each, goal ≤ ${GOAL_MS} ms wall)`,
  '',
  `Node ${process.version}; cores used by other work meanwhile: ${busy} (wall times grow with it; CPU times much less).`,
  '',
  '| command | build | wall median ms | wall min ms | CPU mean ms | goal |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows,
].join('\n');

const resultsDir = join(benchDir, 'results');
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'cli-startup.md'), `${report}\n`);
process.stdout.write(`\n${report}\n\nwritten to bench/results/cli-startup.md\n`);
