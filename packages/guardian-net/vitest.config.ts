import { defineConfig } from 'vitest/config';

// The network suites start real guardian processes on loopback ports, every link TLS pinned to the
// set's identity keys as in production (plain HTTP only where a test is about that mode), so they get generous time-outs;
// the programs they start are bundled once before the first file runs (test/bins.ts).
//
// One worker's files share their imports (isolate: false): no file mocks a module, and the one that
// changes process.env puts it back. The unit files (src/) took 36 s of CPU isolated, 17 s shared.
export default defineConfig({
  test: {
    name: 'guardian-net',
    isolate: false,
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
