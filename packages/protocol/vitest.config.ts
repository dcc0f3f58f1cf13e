import { defineConfig } from 'vitest/config';

// Pure functions with no global state (no module mocks; the fake timers of a test are undone after
// it): one worker's files share their imports instead of loading them again each, which was most
// of this suite's CPU time.
export default defineConfig({
  test: {
    isolate: false,
    name: 'protocol',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
