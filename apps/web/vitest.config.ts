import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { APP_TESTS } from './vitest.app.config';
import { LOGIC_TESTS } from './vitest.logic.config';

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    // The pure logic runs in Node without a DOM (the project web-logic, vitest.logic.config.ts), the
    // app's screens with the fake wallet in a shared window (web-app, vitest.app.config.ts).
    exclude: ['**/node_modules/**', ...LOGIC_TESTS, ...APP_TESTS],
    setupFiles: ['./test/setup.ts'],
    testTimeout: 20_000,
  },
});
