import { defineConfig } from 'vitest/config';

// The app against real guardian processes (test/guardian-network), each file in a fresh worker as
// Vitest's default: they stay out of the server project's shared imports (vitest.config.ts here).
// The environment, time-outs and global setup are the server project's. Every link is TLS pinned
// to the set's identity keys, as in production: no plain-HTTP flag here (the capture test sets it
// for its own plain run, to show what plain HTTP would expose).
export default defineConfig({
  test: {
    name: 'server-network',
    environment: 'node',
    include: ['test/guardian-network/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One retry, as the browser journeys have: these suites time real processes against each
    // other, and the test command runs them beside the journeys and the other suites on 2 cores,
    // where a ROAST session can time out once (a second session, a guardian judged slow). The
    // flakes it covers are listed in the README's Tests section, to be fixed at their cause.
    retry: 1,
    globalSetup: ['../../packages/guardian-net/test/global-setup.ts'],
  },
});
