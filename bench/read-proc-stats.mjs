/**
 * CPU time and memory of one process from Linux /proc: user + system time of all its threads
 * (/proc/PID/stat fields 14 and 15, in clock ticks), its resident set size now (VmRSS) and its peak
 * (VmHWM), both from /proc/PID/status.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** @returns {{ cpuMs: number, rssMb: number, peakRssMb: number }} */
export function readProcStats(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/**
 * Every process on the machine now, from /proc/PID/stat: its command name, parent and CPU time (user +
 * system). A process that exits while the list is read is left out.
 * @returns {Array<{ pid: number, name: string, parentPid: number, cpuMs: number }>}
 */
export function readAllProcCpu() {
  const processes = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    processes.push({
      pid: Number(entry),
      name: stat.slice(stat.indexOf('(') + 1, close),
      parentPid: Number(fields[1]),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
    });
  }
  return processes;
}
