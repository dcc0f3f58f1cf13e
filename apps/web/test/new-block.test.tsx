// A block is what changes confirmed balances (SPEC §7 counts chain_stats): the app watches the tip
// and refreshes the wallet's sats and UNIT when it moves, not only when their stale time runs out.
// The devnet tip is polled every 5 s: the fake clock moves those 5 s at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { advance, eventually, startFakeClock, stopFakeClock } from './fake-clock';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

afterEach(() => {
  stopFakeClock();
});

describe('new blocks', () => {
  it("refreshes the wallet's UNIT once a block arrives, and not before", async () => {
    startFakeClock();
    fakeWallet.connectAs();
    const { queryClient } = renderApp('/');
    await eventually(() => expect(screen.getByText('In wallet: 10,000.00 UNIT')).toBeTruthy());
    const tip = () => queryClient.getQueryState(['block-height']);
    const polls = tip()!.dataUpdateCount;

    // UNIT arrive, unconfirmed: the tip is polled again, has not moved, nothing is refreshed.
    scenario.unitCents = 1_250_000;
    await advance(5_000);
    await eventually(() => expect(tip()!.dataUpdateCount).toBeGreaterThan(polls));
    await advance(0);
    expect(screen.getByText('In wallet: 10,000.00 UNIT')).toBeTruthy();

    // A block: the tip moves at the next poll and the balances are read again.
    scenario.tipHeight = 101;
    await advance(5_000);
    await eventually(() => expect(screen.getByText('In wallet: 12,500.00 UNIT')).toBeTruthy());
  });
});
