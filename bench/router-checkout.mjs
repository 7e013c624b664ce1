/**
 * Which router build a bench script measures: this checkout, or the one BENCH_ROUTER_DIR names (another
 * checkout with dist/ built, e.g. the "before" of a change, measured on the same day by this bench).
 */
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const thisCheckout = dirname(dirname(fileURLToPath(import.meta.url)));

export function routerCheckout() {
  return resolve(process.env.BENCH_ROUTER_DIR ?? thisCheckout);
}

/** A checkout's commit (short hash), for a report's header; 'unknown' outside git. */
export function commitOf(dir) {
  try {
    return execFileSync('git', ['-C', dir, 'log', '-1', '--format=%h'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}
