// Sums the test runners' machine-readable reports into the one closing line CI reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, ...failedSteps] = process.argv.slice(2);
let passed = 0;
let failed = 0;

for (const file of readdirSync(dir).filter((f) => /^vitest.*\.json$/.test(f))) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
}
const playwright = join(dir, 'playwright.json');
if (existsSync(playwright)) {
  const { stats } = JSON.parse(readFileSync(playwright, 'utf8'));
  passed += stats.expected + (stats.flaky ?? 0);
  failed += stats.unexpected;
  console.log(
    `playwright: ${stats.expected} passed, ${stats.flaky ?? 0} passed on their retry (flaky), ${stats.unexpected} failed`,
  );
}
if (failedSteps.length > 0) {
  console.log(`failed steps: ${failedSteps.join(', ')}`);
  // A failed step with no failing test of its own (lint, types, build) still fails the run.
  // So does a runner that failed without leaving its report (stopped, or crashed before writing it).
  const reported = (s) =>
    s === 'e2e' ? existsSync(playwright) : s === 'vitest' && existsSync(join(dir, 'vitest.json'));
  failed += failedSteps.filter((s) => !reported(s)).length;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || failedSteps.length > 0 ? 1 : 0);
