import { defineConfig } from 'vitest/config';

// The web app's pure logic (the flows' declarations and reducer, previews, the chart's scales, the
// live stream's refetch rules, the record commitment and treasury key): no DOM, no module mocks,
// no component. They run in Node without jsdom and share one import of their modules per worker
// (isolate: false): a jsdom window and Testing Library's setup per file were nearly all their CPU
// time. Every other web test stays in the project `web` (vitest.config.ts), which leaves these out.
export const LOGIC_TESTS = [
  'src/api/live.test.ts',
  'src/chart/axis.test.ts',
  'src/chart/geometry.test.ts',
  'src/flows/approvals.test.ts',
  'src/flows/declarations.test.ts',
  'src/flows/engine.test.ts',
  'src/flows/preview.test.ts',
  'src/flows/vault-action.test.ts',
  'test/record-commitment.test.ts',
  'test/treasury-key.test.ts',
];

export default defineConfig({
  test: {
    name: 'web-logic',
    environment: 'node',
    isolate: false,
    include: LOGIC_TESTS,
    testTimeout: 20_000,
  },
});
