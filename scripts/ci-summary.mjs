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

if (startedAtSeconds) {
  const wallSeconds = Math.round(Date.now() / 1000 - Number(startedAtSeconds));
  console.log(`CI wall time: ${Math.floor(wallSeconds / 60)} min ${wallSeconds % 60} s (install and tests)`);
}
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
