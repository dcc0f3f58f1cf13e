import { defineConfig } from 'vitest/config';

// One Vitest run covers every workspace; each project keeps its own environment.
// The browser journeys in e2e/ run under Playwright, not here. With TEST_DATABASE_URL set
// (scripts/ensure-postgres.sh), the guardian flow suite runs a second time on PostgreSQL.
export default defineConfig({
  test: {
    projects: [
      'packages/protocol',
      'packages/bitcoin',
      'packages/guardian-net',
      'apps/server',
      'apps/server/vitest.network.config.ts',
      'apps/web',
      'apps/web/vitest.logic.config.ts',
      'apps/web/vitest.app.config.ts',
      ...(process.env.TEST_DATABASE_URL ? ['apps/server/vitest.flows-postgres.config.ts'] : []),
    ],
  },
});
