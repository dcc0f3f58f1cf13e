import { defineConfig } from 'vitest/config';

// The network suites start real guardian processes on loopback ports, so they get generous time-outs;
// the programs they start are bundled once before the first file runs (test/bins.ts).
//
// One worker's files share their imports (isolate: false): no file mocks a module, and the one that
// changes process.env puts it back. The unit files (src/) took 36 s of CPU isolated, 17 s shared.
export default defineConfig({
  test: {
    name: 'guardian-net',
    isolate: false,
    environment: 'node',
    // Harnesses start guardians on http:// loopback URLs; the TLS links have their own suite.
    env: { UNIT_GUARDIAN_INSECURE_PLAIN_HTTP: '1' },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
