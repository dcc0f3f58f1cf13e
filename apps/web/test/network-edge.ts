import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { fakeWallet } from './fake-wallet';
import { resetScenario, server } from './server';

/**
 * The lifecycle every route test shares: MSW answers the app's HTTP edge (a request it does not
 * know fails the test), and each test starts from the default scenario, empty storage and a
 * disconnected wallet. Call it once at the top of a test file, after its vi.mock of the wallet.
 */
export function withNetworkEdge(): void {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());
  beforeEach(() => {
    resetScenario();
    localStorage.clear();
    sessionStorage.clear();
  });
  afterEach(() => {
    server.resetHandlers();
    fakeWallet.reset();
  });
}
