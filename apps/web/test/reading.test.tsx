// What a borrower reads on the cards and in the drawers says what will happen and what
// has happened: the withdraw's fee from the vault and its maximum, the Risky warning, the cards
// while a transaction waits for its block, the liquidation price card, the UNIT bar, the gauge's
// info sheet.
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { fakeWallet } from './fake-wallet';
import { history, NOW_S, record } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const drawerFor = async (action: string) => {
  fakeWallet.connectAs();
  renderApp(`/?action=${action}`);
  return screen.findByRole('dialog', {}, { timeout: 5_000 });
};

describe('withdraw drawer', () => {
  it('says the network fee is paid from the vault, with its USD, and previews the vault it leaves', async () => {
    const user = userEvent.setup();
    const drawer = await drawerFor('withdraw');
    // The wallet's address is P2WPKH: 266 vB at the Fast 5 sat/vB = 1,330 sats, $1.26 at 95,000
    expect(within(drawer).getByTestId('network-fee')).toHaveTextContent(
      'Network fee paid from the vault: 0.0000133 BTC ($1.26)',
    );
    expect(drawer).toHaveTextContent('You receive exactly the amount you enter');
    await user.type(within(drawer).getByLabelText('Withdraw amount'), '0.1');
    // 1 BTC - 0.1 - 0.0000133 = 0.8999867 BTC backs 50,000.00 UNIT: liquidated at 75,001.10
    expect(within(drawer).getByLabelText('Vault after this transaction')).toHaveTextContent(
      '$67,500.00 → $75,001.10',
    );
  });

  it('shows the most that can be withdrawn, and Max fills it in', async () => {
    const user = userEvent.setup();
    const drawer = await drawerFor('withdraw');
    const hint = await within(drawer).findByText(/^Up to 0\.\d+ BTC\. Amount of BTC you can/);
    const most = /^Up to (0\.\d+) BTC/.exec(hint.textContent ?? '')![1]!;
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    expect(within(drawer).getByLabelText('Withdraw amount')).toHaveValue(most);
    // at the maximum the vault keeps 160% or more: Risky's top, so the warning shows
    expect(within(drawer).getByTestId('risky-warning')).toHaveTextContent(
      /^!This leaves your vault at 16\d%, in the Risky band \(135% - 160%\)/,
    );
  });
});

describe('the Risky warning before a result in the band', () => {
  it('shows for a borrow that lands at 160%, not for one that stays Moderate', async () => {
    const user = userEvent.setup();
    const drawer = await drawerFor('borrow');
    const field = within(drawer).getByLabelText('Borrow amount');
    // 1 BTC at 95,000 backs up to 59,375.00 UNIT at 160%: 9,375.00 more
    await user.type(field, '1000');
    expect(within(drawer).queryByTestId('risky-warning')).toBeNull();
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    const warning = within(drawer).getByTestId('risky-warning');
    expect(warning).toHaveTextContent(
      'This leaves your vault at 160%, in the Risky band (135% - 160%). A small fall in the BTC price would take it to 135%, where it is liquidated and its collateral is lost.',
    );
    // said before the button that confirms it
    const button = within(drawer).getByRole('button', { name: 'Borrow' });
    expect(warning.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe('dashboard cards', () => {
  it('shows the price now and the distance to liquidation, and labels the UNIT bar', async () => {
    fakeWallet.connectAs();
    renderApp('/');
    const card = await screen.findByRole('region', { name: 'Liquidation price' });
    expect(within(card).getByTestId('liquidation-price')).toHaveTextContent('$67,500.00');
    expect(within(card).getByTestId('btc-price-now')).toHaveTextContent('$95,000.00');
    // 95,000 - 67,500 = 27,500, 28.9% of the price now
    expect(within(card).getByTestId('liquidation-distance')).toHaveTextContent(
      '28.9% ($27,500.00) above',
    );
    const unit = screen.getByRole('region', { name: 'UNIT loan balance' });
    // 10,000.00 UNIT in the wallet against 50,000.00 owed
    const bar = await within(unit).findByRole('progressbar', {
      name: 'UNIT in your wallet against your debt',
    });
    expect(bar).toHaveAttribute('aria-valuenow', '20');
    expect(within(unit).getByTestId('unit-bar-reading')).toHaveTextContent(
      'Your wallet is 40,000.00 UNIT short of repaying the whole debt.',
    );
  });

  it('drops the UNIT bar when there is no debt (it read full)', async () => {
    scenario.vault = { ...scenario.vault!, unit_borrowed: 0 };
    fakeWallet.connectAs();
    renderApp('/');
    const unit = await screen.findByRole('region', { name: 'UNIT loan balance' });
    expect(within(unit).queryByRole('progressbar')).toBeNull();
  });

  it('shows one state per card, the confirmed one, and the pending deposit apart and named, until the block', async () => {
    // a deposit of 0.5 BTC the guardian broadcast: the vault reads 1.5 BTC, the chain 1 BTC
    scenario.vault = { ...scenario.vault!, btc_locked: 150_000_000 };
    const pending = {
      ...record(8, NOW_S - 30, 'd', 150_000_000, 5_000_000, 50_000_000, 0),
      confirmed: false,
    };
    const confirmed = { ...record(7, NOW_S - 3600, 'b', 100_000_000, 5_000_000, 0, 0) };
    let records = [...history, confirmed, pending];
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages(() => records),
      ),
    );
    fakeWallet.connectAs();
    const { queryClient } = renderApp('/');
    const btc = await screen.findByRole('region', { name: 'BTC deposited' });
    await waitFor(() =>
      expect(within(btc).getByTestId('btc-deposited')).toHaveTextContent('1 BTC'),
    );
    expect(within(btc).getByTestId('pending-figure')).toHaveTextContent(
      'PendingAfter the pending deposit: 1.5 BTC',
    );
    // the liquidation card: price and distance of the confirmed state (1 BTC, 50,000.00 UNIT:
    // $67,500.00, 28.9% below $95,000), the pending state's both on the labelled line
    const liq = screen.getByRole('region', { name: 'Liquidation price' });
    expect(within(liq).getByTestId('liquidation-price')).toHaveTextContent('$67,500.00');
    expect(within(liq).getByTestId('liquidation-distance')).toHaveTextContent(
      '28.9% ($27,500.00) above',
    );
    expect(within(liq).getByTestId('pending-figure')).toHaveTextContent(
      'PendingAfter the pending deposit: $45,000.00, 52.6% ($50,000.00) above',
    );
    // the gauge reads the confirmed 190%, and 1.5 × 95,000 / 50,000 = 285% once confirmed
    const gauge = screen.getByRole('region', { name: 'Vault health' });
    expect(
      within(gauge).getByRole('group', { name: /^Collateral ratio 190%/ }),
    ).toBeInTheDocument();
    expect(within(gauge).getByTestId('pending-figure')).toHaveTextContent(
      'PendingAfter the pending deposit: 285%',
    );
    // the chart's "Now" is the gauge's
    const chart = await screen.findByRole(
      'region',
      { name: 'Collateral ratio' },
      { timeout: 5_000 },
    );
    await waitFor(() => expect(chart).toHaveTextContent(/Now 190%/));
    // the block comes: one figure again
    records = [...history, confirmed, { ...pending, confirmed: true }];
    await queryClient.invalidateQueries({ queryKey: ['vault-history'] });
    await waitFor(() =>
      expect(within(btc).getByTestId('btc-deposited')).toHaveTextContent('1.5 BTC'),
    );
    expect(screen.queryByTestId('pending-figure')).toBeNull();
    expect(within(liq).getByTestId('liquidation-distance')).toHaveTextContent(
      '52.6% ($50,000.00) above',
    );
  });
});

describe("the gauge's info sheet", () => {
  it('explains each band and the 135% line in one sentence each', async () => {
    const user = userEvent.setup();
    fakeWallet.connectAs();
    renderApp('/');
    const band = await screen.findByRole('button', { name: 'Moderate 161% - 195%' });
    band.focus();
    await user.keyboard('{Enter}');
    const sheet = await screen.findByRole('dialog', { name: 'Moderate' }, { timeout: 5_000 });
    const items = within(sheet)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items).toHaveLength(4);
    expect(items[0]).toMatch(/^Moderate \(161% - 195%\): /);
    expect(items).toContainEqual(expect.stringMatching(/^Risky \(135% - 160%\): /));
    expect(items).toContainEqual(expect.stringMatching(/^Healthy \(196% - 230%\+\): /));
    expect(items[3]).toMatch(/^Liquidation line \(135%\): at or under it the vault is liquidated/);
  });
});
