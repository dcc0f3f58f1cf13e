// Playwright's global setup: the programs the journeys start as processes (the server, and the
// guardian CLI its local network runs) bundled once before the first worker starts its server.
import { buildTestBins } from '../packages/guardian-net/test/bins';

export default async function globalSetup(): Promise<void> {
  await buildTestBins();
}
