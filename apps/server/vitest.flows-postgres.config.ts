import { defineConfig } from 'vitest/config';

// The guardian flow suite again, on PostgreSQL (FLOW_DATABASE_URL: each harness in a schema of its
// own; the storage suite covers both databases already). A project of the one Vitest run when
// TEST_DATABASE_URL is set (vitest.config.ts at the root), so its files fill the workers beside
// the others' instead of running as a phase of their own after them. The environment, time-outs
// and global setup are the server project's (vitest.config.ts here).
export default defineConfig({
  test: {
    name: 'server-flows-postgres',
    // As the server project's: one worker's files share their imports.
    isolate: false,
    environment: 'node',
    env: { FLOW_DATABASE_URL: process.env.TEST_DATABASE_URL ?? '' },
    include: ['test/guardian/**/*.test.ts', 'test/guardian-network/kill-every-flow.test.ts'],
    // Files that never reach FLOW_DATABASE_URL would run here exactly as in the server project:
    // the settlement rules on a SQLite store of their own, the socket limits on startTestApp's
    // SQLite, and the kill drill, which covers PostgreSQL itself through TEST_DATABASE_URL and
    // skips all of its cases here.
    exclude: [
      'test/guardian/term-settle.test.ts',
      'test/guardian/term-settle-round.test.ts',
      'test/guardian/socket-limits.test.ts',
      'test/guardian/kill-drill.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['../../packages/guardian-net/test/global-setup.ts'],
  },
});
