// A block is what changes confirmed balances (SPEC §7 counts chain_stats): the app watches the tip
// and refreshes the wallet's sats and UNIT when it moves, not only when their stale time runs out.
// Real timers: the devnet tip is polled every 5 s, so this test waits that long.
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

describe('new blocks', () => {
  it("refreshes the wallet's UNIT once a block arrives, and not before", async () => {
    fakeWallet.connectAs();
    const { queryClient } = renderApp('/');
    expect(
      await screen.findByText('In wallet: 10,000.00 UNIT', {}, { timeout: 5_000 }),
    ).toBeTruthy();
    const tip = () => queryClient.getQueryState(['block-height']);
    const polls = tip()!.dataUpdateCount;

    // UNIT arrive, unconfirmed: the tip is polled again, has not moved, nothing is refreshed.
    scenario.unitCents = 1_250_000;
    await waitFor(() => expect(tip()!.dataUpdateCount).toBeGreaterThan(polls), { timeout: 8_000 });
    expect(screen.getByText('In wallet: 10,000.00 UNIT')).toBeTruthy();

    // A block: the tip moves and the balances are read again.
    scenario.tipHeight = 101;
    expect(
      await screen.findByText('In wallet: 12,500.00 UNIT', {}, { timeout: 8_000 }),
    ).toBeTruthy();
  }, 20_000);
});
