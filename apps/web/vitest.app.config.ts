import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The app's screens with the fake wallet in place of src/wallet (every file here mocks it the same
// way): one jsdom window and one import of React, Testing Library and the app's modules per worker
// (isolate: false), each file starting from a fresh page and clock (test/fresh-page.ts). A window
// and those imports per file were most of these files' CPU time. The files that test the real
// wallet, mock nothing, or depend on a dialog's first load (polish: focus on the drawer's field)
// stay isolated in the project web (vitest.config.ts), which leaves these out.
export const APP_TESTS = [
  'test/action-links.test.tsx',
  'test/banner-approvals.test.tsx',
  'test/components.test.tsx',
  'test/data-freshness.test.tsx',
  'test/drawer.test.tsx',
  'test/first-paint.test.tsx',
  'test/flow-timeout.test.tsx',
  'test/funds-arriving.test.tsx',
  'test/guardian-approvals.test.tsx',
  'test/liquidation.test.tsx',
  'test/live.test.tsx',
  'test/max-deposit.test.tsx',
  'test/missions.test.tsx',
  'test/narrow-screen.test.tsx',
  'test/network-history.test.tsx',
  'test/network-page.test.tsx',
  'test/new-block.test.tsx',
  'test/notify.test.tsx',
  'test/pending-banner.test.tsx',
  'test/price-paused.test.tsx',
  'test/ratio-chart.test.tsx',
  'test/reading.test.tsx',
  'test/resend.test.tsx',
  'test/shell-routes.test.tsx',
  'test/speed-up.test.tsx',
  'test/term-warning.test.tsx',
  'test/toasts.test.tsx',
  'test/transactions-pages.test.tsx',
  'test/vault-page.test.tsx',
  'test/vault-unavailable.test.tsx',
];

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web-app',
    environment: 'jsdom',
    isolate: false,
    include: APP_TESTS,
    setupFiles: ['./test/setup.ts', './test/fresh-page.ts'],
    testTimeout: 20_000,
  },
});
