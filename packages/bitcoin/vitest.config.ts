import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'bitcoin',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
