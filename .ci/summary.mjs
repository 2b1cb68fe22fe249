// Sums vitest JSON reports into the single line CI records: "N passed, N failed".
// A missing report, or a suite that failed to load, counts as a failure so it cannot pass silently;
// CI_EXTRA_FAILURES adds failed checks that are not vitest tests (a work tree the run changed).
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = Number(process.env.CI_EXTRA_FAILURES ?? 0);
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
