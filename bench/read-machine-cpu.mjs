/**
 * How busy the machine was with work other than the benchmark: CPU time of every process (/proc/stat)
 * minus the benchmark's own tree (this process, its reaped children and those still running) and minus
 * the PostgreSQL and Redis servers (which also serve whatever else runs), over the run. Everything
 * shares 2 cores, so another test suite running meanwhile moves every figure; this says whether it did.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readProcStats } from './read-proc-stats.mjs';
import { sampleServerCpu } from './read-server-cpu.mjs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const ticksToMs = (ticks) => (ticks * 1000) / TICKS_PER_SECOND;

/** user + nice + system time of all CPUs: what processes used (interrupts, steal and idle left out). */
function machineBusyMs() {
  const [, user, nice, system] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return ticksToMs(user + nice + system);
}

/** This process and every child it has reaped (utime, stime, cutime, cstime). */
function benchSelfMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ticksToMs(Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]));
}

/**
 * @returns {{ finish(livePids: number[]): { wallS: number, busyCpuS: number, benchCpuS: number, serversCpuS: number,
 *   othersCpuS: number, othersCores: number } }}
 *   livePids: the benchmark's children still running at the end (their CPU is not in cutime yet)
 *   othersCpuS: busy − bench − servers; per-process times are exact and /proc/stat's are sampled, so
 *   it is only good to a few % of busyCpuS and can come out slightly negative on a quiet machine
 */
export function startMachineCpuWatch() {
  const start = { at: Date.now(), busy: machineBusyMs(), bench: benchSelfMs() };
  // Server processes come and go (a PostgreSQL backend per router connection): sampled every 500 ms,
  // each one's CPU counted from its first sample (or its start) to its last.
  const servers = new Map(Array.from(sampleServerCpu(), ([pid, ms]) => [pid, { first: ms, last: ms }]));
  const sampleServers = () => {
    for (const [pid, ms] of sampleServerCpu()) {
      const seen = servers.get(pid);
      if (seen) seen.last = ms;
      else servers.set(pid, { first: 0, last: ms });
    }
  };
  const timer = setInterval(sampleServers, 500);
  timer.unref();
  return {
    finish(livePids) {
      clearInterval(timer);
      sampleServers();
      let live = 0;
      for (const pid of livePids) {
        try {
          live += readProcStats(pid).cpuMs;
        } catch {
          // exited meanwhile: reaped, so already in cutime
        }
      }
      let serversMs = 0;
      for (const { first, last } of servers.values()) serversMs += last - first;
      const wallS = (Date.now() - start.at) / 1000;
      const busyMs = machineBusyMs() - start.busy;
      const benchMs = benchSelfMs() - start.bench + live;
      const othersMs = busyMs - benchMs - serversMs;
      return { wallS, busyCpuS: busyMs / 1000, benchCpuS: benchMs / 1000, serversCpuS: serversMs / 1000, othersCpuS: othersMs / 1000, othersCores: othersMs / 1000 / wallS };
    },
  };
}
