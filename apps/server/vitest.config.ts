import { defineConfig } from 'vitest/config';

// Integration tests start real servers on loopback ports with temporary databases;
// they are slower than unit tests, so they get generous time-outs. The programs they start as
// processes (guardians, the server's entry) are bundled once before the first file runs.
//
// One worker's files share their imports (isolate: false): each file loading the server's module
// graph again (Fastify, Kysely, the drivers, the protocol) was most of a short file's CPU time (12
// files: 37 s of CPU isolated, 14 s shared). The files leave no global state behind: each closes
// what it starts, restores what it changes in process.env, and mocks no module; an app's
// metrics have a registry of their own. The files that run the app against guardian processes
// (test/guardian-network) stay isolated, in the project server-network (vitest.network.config.ts):
// after another file in the same worker, a malicious guardian's bad share failed the adversary
// file's borrow instead of being left out.
export default defineConfig({
  test: {
    name: 'server',
    isolate: false,
    exclude: ['test/guardian-network/**', '**/node_modules/**'],
    environment: 'node',
    // No plain-HTTP flag: the guardians the harnesses start speak TLS pinned to the set's keys.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['../../packages/guardian-net/test/global-setup.ts'],
  },
});
