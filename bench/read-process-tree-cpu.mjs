/**
 * CPU time of a process and all its descendants (a cluster-mode router: the primary and its workers,
 * replacements included), read from /proc like read-proc-stats.mjs. Returned as pid → CPU ms, the group
 * form run-load-cells.mjs accepts, so a worker that exits or starts mid-slice is counted for its part.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** @returns {() => Map<number, number>} a sampler for the tree under `rootPid` */
export function processTreeCpu(rootPid) {
  return () => {
    const parents = new Map();
    const cpu = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      cpu.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    }
    const inTree = (pid) => {
      for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops++) if (at === rootPid) return true;
      return false;
    };
    return new Map([...cpu].filter(([pid]) => inTree(pid)));
  };
}

/** The pids in the tree under `rootPid` (the router's processes), for their peak RSS. */
export function processTree(rootPid) {
  return [...processTreeCpu(rootPid)().keys()];
}
