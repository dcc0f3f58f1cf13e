import { defineConfig } from 'vitest/config';

// The network suites start real guardian processes on loopback ports, so they get generous time-outs;
// the programs they start are bundled once before the first file runs (test/bins.ts).
export default defineConfig({
  test: {
    name: 'guardian-net',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
