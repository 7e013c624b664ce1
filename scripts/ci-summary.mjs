// Prints what a CI reader needs after `npm test`: the wall time of the run, the 20 slowest test files
// (where the suite's time goes, so the next speed-up has a target) and, last, the plain
// "N passed, N failed, N skipped" line that any CI reader understands.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [reportPath = 'test-results/vitest.json', startedAtSeconds] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath, 'utf8'));

const files = report.testResults
  .map((file) => ({ name: relative(process.cwd(), file.name), ms: file.endTime - file.startTime }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 20);
console.log('slowest test files:');
for (const file of files) console.log(`  ${(file.ms / 1000).toFixed(1).padStart(7)} s  ${file.name}`);

const minutes = (seconds) => {
  const whole = Math.round(seconds); // rounded first, so 59.6 s reads "1 min 0 s", never "0 min 60 s"
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
};
const suiteEnd = Math.max(report.startTime, ...report.testResults.map((file) => file.endTime));
console.log(`test suite: ${minutes((suiteEnd - report.startTime) / 1000)} (vitest, from its start to its last file's end)`);
if (startedAtSeconds) {
  const startedAtMs = Number(startedAtSeconds) * 1000;
  // Before the suite: Chromium's and the dependencies' install, the build and the typecheck. After it:
  // waiting for the container stage, when it ends later than the suite.
  console.log(`before the suite: ${minutes((report.startTime - startedAtMs) / 1000)}; after it: ${minutes((Date.now() - suiteEnd) / 1000)}`);
  console.log(`CI wall time: ${minutes((Date.now() - startedAtMs) / 1000)} (install and tests)`);
}
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
