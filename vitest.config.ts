import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The multi-process and database suites share real services; keep files from stepping on each other's ports and rows.
    fileParallelism: true,
    pool: 'forks',
  },
});
