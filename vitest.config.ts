import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files that take minutes, most of it waiting (relays that add latency, clusters restarting workers,
 * a browser), longest first: started at the beginning of a run, none of them is left running alone at its
 * end while the other workers sit idle. Vitest orders by the previous run's durations when it has them
 * (under node_modules/.vite), which a fresh CI clone never has. From scripts/ci-summary.mjs's list.
 */
const LONGEST_FIRST = [
  'test/e2e/slow-postgres-pool.test.ts',
  'test/e2e/slow-stores.test.ts',
  'test/e2e/cluster-mode.test.ts',
  'test/e2e/cluster-worker-death.test.ts',
  'test/browser/app-journey.test.ts',
  'test/browser/every-page-look.test.ts',
  'test/e2e/claude-code-headless.test.ts',
  'test/e2e/app/app-signin-fairness.test.ts',
  'test/e2e/usage-cli.test.ts',
  'test/e2e/cli.test.ts',
  'test/browser/mail-journey.test.ts',
  'test/browser/forms-and-times.test.ts',
  'test/e2e/migrate.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Tests that compare durations of work done on this machine's cores (sign-up with and without an account,
 * a quiet account's latency beside a noisy one, a panel's parallel answers against their sum, providers
 * ranked by their measured time to first byte) or bound a process's reaction in time (the cluster
 * watchdog's kill within its timeout and a second): they run after all the others, one at a time, so no
 * other file competes with them for the cores. In the parallel group the sign-up timing ratio came out
 * at 1.70 against its 1.6 bound, and the watchdog's kill was not seen within 7 s.
 */
const TIMED = [
  'test/e2e/app/app-signup-privacy.test.ts',
  'test/security/tenant-isolation.test.ts',
  'test/e2e/fusion-synthesis.test.ts',
  'test/e2e/fusion-failures.test.ts',
  'test/e2e/generation-receipt.test.ts',
  'test/e2e/multi-instance-measured-routing.test.ts',
  'test/e2e/cluster-measured-routing.test.ts',
  'test/e2e/cluster-watchdog.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The multi-process and database suites share real services; keep files from stepping on each other's ports and rows.
    fileParallelism: true,
    pool: 'forks',
    // One process per worker serves file after file, keeping the modules it loaded: with a fresh process
    // and module graph per file, loading the router's source again took 772 s of a CI run's import time
    // (2.2 s per file on a loaded machine). Side by side on a quiet machine: test/unit 47 against 88 s,
    // test/e2e/app 62 against 118 s; the whole suite took 688 s, every test passing (the last CI run,
    // isolated and beside the image stage, 1,043 s). Files stay apart
    // by design: each starts its own routers, stores and fakes and closes them, no test sets process.env,
    // and the setup file runs again before every file (cheap password hashes).
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // Cheap password hashes in every test file, unless it asks for production's (test/support/cheap-password-hashing.ts).
    setupFiles: ['test/support/vitest-setup.ts'],
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...TIMED],
          // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine, every
          // file in turn. Most files spend their time waiting (on spawned routers, relays, a browser,
          // PostgreSQL), so more files at once than cores fill the idle time. VITEST_MAX_WORKERS overrides it.
          maxWorkers: 4,
        },
      },
      { extends: true, test: { name: 'timed', include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
