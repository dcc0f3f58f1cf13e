import { defineConfig } from 'vitest/config';

// Integration tests start real servers on loopback ports with temporary databases;
// they are slower than unit tests, so they get generous time-outs. The programs they start as
// processes (guardians, the server's entry) are bundled once before the first file runs.
export default defineConfig({
  test: {
    name: 'server',
    environment: 'node',
    // Harnesses start guardians on http:// loopback URLs; the TLS links have their own suite.
    env: { UNIT_GUARDIAN_INSECURE_PLAIN_HTTP: '1' },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['../../packages/guardian-net/test/global-setup.ts'],
  },
});
