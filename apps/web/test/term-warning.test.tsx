// Before its term the dashboard tells the owner what the guardians do at the term if nothing
// happens, and that any action renews it: 30, 7 and 1 days before, scaled to the configured term.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { BLOCKS_PER_DAY, termWarningText } from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { config, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const YEAR = { termBlocks: 365 * BLOCKS_PER_DAY, graceBlocks: 30 * BLOCKS_PER_DAY };

function serve(settleHeight: number, tipHeight: number, vaultTerm = YEAR) {
  server.use(
    http.get('*/api/config', () =>
      HttpResponse.json({ ...config, constants: { ...config.constants, vaultTerm } }),
    ),
  );
  scenario.vault = { ...vault, settle_height: settleHeight, exit_height: settleHeight + 20 };
  scenario.tipHeight = tipHeight;
}

describe('the term warning', () => {
  it('says 7 days before the term what happens at it and that an action renews it', async () => {
    serve(10_000, 10_000 - 7 * BLOCKS_PER_DAY);
    fakeWallet.connectAs();
    renderApp('/');
    const banner = await screen.findByTestId('term-warning', {}, { timeout: 5_000 });
    const text = termWarningText({ days: 7, blocksLeft: 7 * BLOCKS_PER_DAY, settleHeight: 10_000 });
    expect(within(banner).getByText('Your vault reaches its term within 7 days')).toBeVisible();
    expect(banner).toHaveTextContent(
      `In 1008 blocks (at block 10000), the guardians settle a vault that has had no action: its debt is repaid from its collateral at the oracle's price with the 15% liquidation tax, and the rest of its bitcoin returns to you.`,
    );
    expect(banner).toHaveTextContent(text.whatToDo);
  });

  it('is absent more than 30 days before the term', async () => {
    serve(10_000, 10_000 - 30 * BLOCKS_PER_DAY - 1);
    fakeWallet.connectAs();
    renderApp('/');
    await screen.findByRole('button', { name: 'Deposit' }, { timeout: 5_000 });
    expect(screen.queryByTestId('term-warning')).not.toBeInTheDocument();
  });

  it('scales to a short term: the devnet warns in its last 4 blocks', async () => {
    serve(140, 137, { termBlocks: 40, graceBlocks: 20 });
    fakeWallet.connectAs();
    renderApp('/');
    const banner = await screen.findByTestId('term-warning', {}, { timeout: 5_000 });
    expect(banner).toHaveTextContent('Your vault reaches its term within 30 days');
    expect(banner).toHaveTextContent('In 3 blocks (at block 140)');
  });
});
