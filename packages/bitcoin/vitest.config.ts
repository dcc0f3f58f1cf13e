import { defineConfig } from 'vitest/config';

// Pure functions with no global state (no module mocks, no fake timers): one worker's files share
// their imports instead of loading them again each.
export default defineConfig({
  test: {
    isolate: false,
    name: 'bitcoin',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A few tests build and sign a dozen transactions (a second or two alone); on a busy machine
    // running the whole suite beside them, five seconds was not enough.
    testTimeout: 20_000,
  },
});
