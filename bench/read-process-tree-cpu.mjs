/**
 * CPU time of a process and all its descendants (a cluster-mode router: the primary and its workers,
 * replacements included), read from /proc like read-proc-stats.mjs. Returned as pid → CPU ms, the group
 * form run-load-cells.mjs accepts, so a worker that exits or starts mid-slice is counted for its part.
 */
import { readAllProcCpu } from './read-proc-stats.mjs';

/** @returns {() => Map<number, number>} a sampler for the tree under `rootPid` */
export function processTreeCpu(rootPid) {
  return () => {
    const processes = readAllProcCpu();
    const parents = new Map(processes.map((proc) => [proc.pid, proc.parentPid]));
    const inTree = (pid) => {
      for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops++) if (at === rootPid) return true;
      return false;
    };
    return new Map(processes.filter((proc) => inTree(proc.pid)).map((proc) => [proc.pid, proc.cpuMs]));
  };
}

/** The pids in the tree under `rootPid` (the router's processes), for their peak RSS. */
export function processTree(rootPid) {
  return [...processTreeCpu(rootPid)().keys()];
}
