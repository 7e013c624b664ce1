/**
 * CPU time of the PostgreSQL and Redis servers, when they run on this machine: every process named
 * `postgres` (the postmaster, one backend per client connection, background workers) or
 * `redis-server`, read from /proc/PID/stat like read-proc-stats.mjs. The Redis quota gate moves work
 * from PostgreSQL to Redis, so the router's own CPU alone would not show what it saves.
 */
import { readAllProcCpu } from './read-proc-stats.mjs';

const SERVER_NAMES = new Set(['postgres', 'redis-server']);

/** @returns {Map<number, number>} pid → CPU ms (user + system) of every server process there now */
export function sampleServerCpu() {
  return new Map(readAllProcCpu().filter((proc) => SERVER_NAMES.has(proc.name)).map((proc) => [proc.pid, proc.cpuMs]));
}

/** Which of the two servers are visible here (none when they run on another host or in another PID namespace). */
export function visibleServers() {
  return new Set(readAllProcCpu().filter((proc) => SERVER_NAMES.has(proc.name)).map((proc) => proc.name));
}
