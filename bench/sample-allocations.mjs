/**
 * Preloaded into a benchmark component (`node --import ./bench/sample-allocations.mjs …`): V8's sampling
 * heap profiler, counting objects the GC has already collected too, so the profile says what a request
 * *allocates* (what the GC must then clear), not only what it keeps. SIGUSR2 starts sampling; the next
 * SIGUSR2 stops it and writes the profile to BENCH_ALLOCATION_PROFILE (a .heapprofile file, readable in
 * Chrome DevTools), then `allocation-profile-written` to stderr.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const output = process.env.BENCH_ALLOCATION_PROFILE;
if (output) {
  const session = new Session();
  session.connect();
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  let sampling = false;
  process.on('SIGUSR2', () => {
    const toggle = sampling
      ? post('HeapProfiler.stopSampling').then(({ profile }) => {
          writeFileSync(output, JSON.stringify(profile));
          process.stderr.write('allocation-profile-written\n');
        })
      : post('HeapProfiler.enable').then(() =>
          // One sample per 4 KB on average: tens of thousands of samples over a few thousand requests.
          post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
        );
    sampling = !sampling;
    toggle.catch((error) => process.stderr.write(`allocation sampling failed: ${error.message}\n`));
  });
}
