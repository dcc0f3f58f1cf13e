import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { pendingStorageKey } from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { history, record, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, scenario, server } from './server';
import type { ExecuteFlow } from '../src/flows/flow-types';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

/** Creates the vault "Treasure" through the form: 0.5 BTC in, 1000 UNIT borrowed, confirmed. */
async function createTreasure(user: ReturnType<typeof userEvent.setup>): Promise<void> {
  await user.click(await screen.findByRole('button', { name: 'Create Vault' }));
  await user.type(await screen.findByLabelText('Vault name'), 'Treasure');
  await user.click(screen.getByRole('button', { name: 'Continue' }));
  await user.type(await screen.findByLabelText('Deposit BTC'), '0.5');
  await user.type(screen.getByLabelText('Borrow UNIT'), '1000');
  await user.click(screen.getByRole('button', { name: 'Preview' }));
  await user.click(await screen.findByRole('button', { name: 'Confirm' }));
}

describe('vault page states', () => {
  it('shows the welcome screen with Create Vault and social links when no wallet is connected', async () => {
    renderApp('/');
    expect(await screen.findByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'X (Twitter)' })[0]).toHaveAttribute(
      'href',
      'https://x.com/unit',
    );
    expect(screen.getAllByRole('link', { name: 'Discord' }).length).toBeGreaterThan(0);
    expect(screen.getAllByRole('link', { name: 'Telegram' }).length).toBeGreaterThan(0);
    // who co-signs: the 2-of-3 guardian network of GET /api/network, not "the guardian's"
    expect(
      await screen.findByText(
        'Your bitcoin sits in a vault on chain that moves only with your signature and the co-signature of 2 of the 3 guardians.',
      ),
    ).toBeInTheDocument();
  });

  it('shows the welcome screen when the connected wallet has no vault (404)', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    renderApp('/');
    expect(await screen.findByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    expect(screen.queryByText('BTC deposited')).not.toBeInTheDocument();
  });

  it('shows the dashboard values of the vault fixture', async () => {
    fakeWallet.connectAs();
    renderApp('/');
    expect(await screen.findByTestId('btc-deposited')).toHaveTextContent('1 BTC');
    expect(screen.getByTestId('unit-debt')).toHaveTextContent('50,000.00 UNIT');
    // 50,000 UNIT × 1.35 / 1 BTC
    expect(screen.getByTestId('liquidation-price')).toHaveTextContent('$67,500.00');
    // 1 BTC × 95,000 / 50,000 → 190%: Moderate
    expect(
      await screen.findByRole('group', { name: /Collateral ratio 190%, Moderate/ }),
    ).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Deposit' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Borrow' })).toBeEnabled();
    // Moderate band: the gauge offers a Deposit shortcut
    expect(screen.getByRole('button', { name: 'Deposit to improve health' })).toBeInTheDocument();
  });

  it('goes from creation to pending to success and back to the vault with Go to Vault', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    let finish: (() => void) | null = null;
    const execute: ExecuteFlow = async (_action, _input, onProgress) => {
      onProgress(1);
      onProgress(2);
      await new Promise<void>((resolve) => (finish = resolve));
      return { txid: '1'.repeat(64), vaultTxid: '1'.repeat(64) };
    };
    const user = userEvent.setup();
    const { queryClient } = renderApp('/', { execute });
    await createTreasure(user);

    expect(
      await screen.findByText(
        'Your vault is under construction. Almost there! This might take about 10 minutes.',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Enable Telegram Notification' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Transaction Tracker' })).toBeInTheDocument();

    // The guardian has broadcast the opening: the vault is recorded, its block not yet mined.
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages(history.map((r) => ({ ...r, confirmed: false }))),
      ),
    );
    scenario.vault = vault;
    finish!();
    await queryClient.invalidateQueries({ queryKey: ['vault'] });
    await waitFor(() =>
      expect(queryClient.getQueryData(['vault-history', vault.vault_id])).toBeDefined(),
    );
    expect(screen.getByText(/Your vault is under construction/)).toBeInTheDocument();
    // Submitted, waiting for its block: the flow is still in progress, the tracker still reachable.
    await user.click(screen.getByRole('button', { name: 'Transaction Tracker' }));
    expect(await screen.findByRole('dialog')).toBeInTheDocument();
    await user.keyboard('{Escape}');

    // A block confirms it: now it exists.
    server.resetHandlers();
    await queryClient.invalidateQueries({ queryKey: ['vault-history'] });
    expect(
      await screen.findByText('Vault Successfully Created!', { selector: 'h1' }),
    ).toBeInTheDocument();
    // The server signed alone: no word of guardians.
    expect(screen.queryByText('Guardians', { selector: 'dt' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Go to Vault' }));
    expect(await screen.findByTestId('btc-deposited')).toHaveTextContent('1 BTC');
  });

  it('says who approved the opening on the success screen, the tracker looked at and closed', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    let finish: (() => void) | null = null;
    const guardians = [
      { id: 1, name: 'guardian-1', state: 'approved' as const },
      { id: 2, name: 'guardian-2', state: 'approved' as const },
      { id: 3, name: 'guardian-3', state: 'approved' as const },
    ];
    const execute: ExecuteFlow = async (_action, _input, onProgress) => {
      onProgress(1);
      onProgress(2);
      onProgress(4, { approved: 3, needed: 2, total: 3, guardians });
      await new Promise<void>((resolve) => (finish = resolve));
      return { txid: '1'.repeat(64), vaultTxid: '1'.repeat(64) };
    };
    const user = userEvent.setup();
    const { queryClient } = renderApp('/', { execute });
    await createTreasure(user);
    await screen.findByText(/Your vault is under construction/);
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages(history.map((r) => ({ ...r, confirmed: false }))),
      ),
    );
    scenario.vault = vault;
    finish!();
    await queryClient.invalidateQueries({ queryKey: ['vault'] });
    // The user looks at the finished tracker and closes it: the drawer forgets its flow.
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('3 of 3 guardians approved')).toBeVisible();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    server.resetHandlers();
    await queryClient.invalidateQueries({ queryKey: ['vault-history'] });
    await screen.findByText('Vault Successfully Created!', { selector: 'h1' });
    const summary = await screen.findByTestId('creation-summary');
    expect(
      within(summary).getByText('Guardians', { selector: 'dt' }).nextElementSibling,
    ).toHaveTextContent('3 of 3 guardians approved');
    await user.click(screen.getByRole('button', { name: 'Go to Vault' }));
    expect(await screen.findByTestId('btc-deposited')).toHaveTextContent('1 BTC');
  });
});

describe('?action= handling', () => {
  it('opens the deposit drawer and resets the URL to /', async () => {
    fakeWallet.connectAs();
    const { router } = renderApp('/?action=deposit');
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    expect(within(drawer).getByText('Deposit amount')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/');
  });

  it('opens the create drawer for create-vault', async () => {
    const { router } = renderApp('/?action=create-vault');
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toHaveTextContent(
      'Name Your Vault',
    );
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it.each(['steal', 'constructor'])(
    'ignores the unknown action %s but still resets the URL',
    async (action) => {
      const { router } = renderApp(`/?action=${action}`);
      await waitFor(() => expect(router.state.location.search).toBe(''));
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    },
  );
});

describe('a transaction pending elsewhere', () => {
  it("holds every action back while the vault's history has it unconfirmed", async () => {
    // A repossess (not a drawer flow), or an action sent from another device: no local entry.
    const unconfirmed = {
      ...record(
        8,
        Math.floor(Date.now() / 1000) - 60,
        'x',
        185_000_000,
        9_000_000,
        85_000_000,
        4_000_000,
      ),
      confirmed: false,
    };
    server.use(http.get('*/api/vaults/:id/history', historyPages([...history, unconfirmed])));
    fakeWallet.connectAs();
    renderApp('/');
    await screen.findByTestId('btc-deposited');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Deposit' })).toBeDisabled());
    for (const name of ['Deposit', 'Withdraw', 'Borrow', 'Repay'])
      expect(screen.getByRole('button', { name })).toHaveAttribute(
        'title',
        'A transaction is pending. Please wait until it completes.',
      );
  });
});

describe('a creation across a reload', () => {
  it('keeps the creation screen until the opening confirms, then shows success', async () => {
    // What the create flow stored before the reload: its opening, still in progress.
    const openTxid = 'a'.repeat(64);
    localStorage.setItem(
      pendingStorageKey(FAKE_ACCOUNT.satsAddress),
      JSON.stringify([
        {
          date: Math.floor(Date.now() / 1000) - 120,
          type: 'create',
          amount: '2000000',
          amountUnit: 'UNIT',
          status: 'In Progress',
          transactionId: openTxid,
          vault_txid: openTxid,
          btcInVault: '50000000',
          unitInVault: '2000000',
          healthFactorBefore: null,
          healthFactorAfter: 238,
          healthStatusBefore: null,
          healthStatusAfter: { text: 'Healthy', colour: 'green' },
          isFullRepay: false,
        },
      ]),
    );
    const opening = {
      ...record(
        1,
        Math.floor(Date.now() / 1000) - 120,
        'o',
        50_000_000,
        2_000_000,
        50_000_000,
        2_000_000,
      ),
      transaction_id: openTxid,
    };
    let confirmed = false;
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages(() => [{ ...opening, confirmed }]),
      ),
    );
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { queryClient } = renderApp('/');
    expect(
      await screen.findByText(
        'Your vault is under construction. Almost there! This might take about 10 minutes.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^View transaction aaaaaaaa/ })).toBeInTheDocument();
    expect(screen.queryByTestId('btc-deposited')).not.toBeInTheDocument();

    // The block: the history holds the opening, confirmed.
    confirmed = true;
    await queryClient.invalidateQueries({ queryKey: ['vault-history'] });
    await user.click(
      await screen.findByRole('button', { name: 'Go to Vault' }, { timeout: 5_000 }),
    );
    expect(await screen.findByTestId('btc-deposited')).toBeInTheDocument();
  });
});
