/**
 * The Node/V8 flags a cluster worker starts with: the primary's own, plus the young generation's bound
 * the router is measured with. V8 reads `--max-semi-space-size` only when a process starts (set later
 * through `v8.setFlagsFromString` it leaves the heap as it was), so a worker is the one place the router
 * can choose it for itself; a single process takes it from its command line (the container image's
 * entrypoint passes it). 8 MB semi-spaces instead of V8's 16 took 26 MB off the peak RSS at 128
 * connections at no measurable CPU cost (README, Performance; bench/README.md); 4 MB cost 30 % more CPU.
 */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=8';

/**
 * `execArgv` for the workers: the operator's flags are kept, and one who chose a semi-space size (on the
 * command line or in NODE_OPTIONS) keeps that choice.
 */
export function workerExecArgv(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const chosen = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((flag) => /^--max[-_]semi[-_]space[-_]size\b/.test(flag));
  return chosen ? [...execArgv] : [...execArgv, SEMI_SPACE_FLAG];
}
