/**
 * CPU time of the PostgreSQL and Redis servers, when they run on this machine: every process named
 * `postgres` (the postmaster, one backend per client connection, background workers) or
 * `redis-server`, read from /proc/PID/stat like read-proc-stats.mjs. The Redis quota gate moves work
 * from PostgreSQL to Redis, so the router's own CPU alone would not show what it saves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const SERVER_NAMES = new Set(['postgres', 'redis-server']);

/** @returns {Map<number, number>} pid → CPU ms (user + system) of every server process there now */
export function sampleServerCpu() {
  const sample = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(')');
    if (!SERVER_NAMES.has(stat.slice(stat.indexOf('(') + 1, close))) continue;
    const fields = stat.slice(close + 2).split(' ');
    sample.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
  }
  return sample;
}

/** Which of the two servers are visible here (none when they run on another host or in another PID namespace). */
export function visibleServers() {
  const names = new Set();
  for (const pid of sampleServerCpu().keys()) {
    try {
      names.add(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
    } catch {
      // exited meanwhile
    }
  }
  return names;
}
