import { defineConfig } from 'vitest/config';

// Pure functions with no global state (no module mocks, no fake timers): one worker's files share
// their imports instead of loading them again each.
export default defineConfig({
  test: {
    isolate: false,
    name: 'bitcoin',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
