// Vitest's global setup of the suites that start guardians or servers as processes: their programs
// bundled once before any test file runs (bins.ts).
import { buildTestBins } from './bins';

export default async function setup(): Promise<void> {
  await buildTestBins();
}
