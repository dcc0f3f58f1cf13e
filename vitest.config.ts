import { defineConfig } from 'vitest/config';

// One Vitest run covers every workspace; each project keeps its own environment.
// The browser journeys in e2e/ run under Playwright, not here.
export default defineConfig({
  test: {
    projects: [
      'packages/protocol',
      'packages/bitcoin',
      'packages/guardian-net',
      'apps/server',
      'apps/web',
    ],
  },
});
