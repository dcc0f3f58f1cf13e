import '@testing-library/jest-dom/vitest';
import { afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';

// Vitest runs without globals, so Testing Library cannot register its own cleanup.
afterEach(() => cleanup());

// The dialogs, drawers and wallet adapters load on first use (the dashboard's bundle budget), and
// under the suite's two workers the first import of such a chunk is transformed on demand and can
// take longer than Testing Library's 1 s default: a `findBy` waits up to 5 s for what the app
// shows, still well inside each test's own time-out.
configure({ asyncUtilTimeout: 5_000 });

// The answers' check (src/api/answer-check.ts, the route table's schemas) loads on the app's first
// call while that request is under way; here it is loaded once before the tests, so its first
// transform is not counted against a test that waits 5 s for the page.
await import('../src/api/answer-check');
