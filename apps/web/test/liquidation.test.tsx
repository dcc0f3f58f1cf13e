// SPEC §4 Liquidated state on the dashboard, and the /liquidations page where a liquidated vault is
// repossessed (SPEC §2 Routes; the review rules are the guardian's: 15% tax, claimant keeps 160%).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  BUTTON_REASONS,
  CONTENT,
  LIQUIDATED_MARKER_TTL_SECONDS,
  parsePendingList,
  pendingStorageKey,
  type LiquidatedVaultDto,
  type VaultHistoryRecordDto,
  type VaultLiquidationDto,
} from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { config, liquidated, price, record, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import type { ExecuteFlow } from '../src/flows/flow-types';
import { historyPages, scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

// The real repossess loads the guardian client and its Bitcoin libraries; the page and the flow
// engine are under test, so the flow's execute step is injected.
const execute = vi.fn<ExecuteFlow>();

const MARKER = `unit.liquidated.${vault.vault_id}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

let priceUsd = price.USD;
let liquidations: LiquidatedVaultDto[] = [];
let liquidationsAsked = 0;

beforeEach(() => {
  priceUsd = price.USD;
  liquidations = [];
  liquidationsAsked = 0;
  execute.mockReset();
  server.use(
    http.get('*/api/bitcoin-price', () => HttpResponse.json({ USD: priceUsd, time: nowSeconds() })),
    http.get('*/api/liquidations', () => {
      liquidationsAsked++;
      return HttpResponse.json(liquidations);
    }),
  );
});

const ACTIONS = ['Deposit', 'Withdraw', 'Borrow', 'Repay'] as const;

async function expectActions(enabled: boolean) {
  for (const name of ACTIONS) {
    const button = await screen.findByRole('button', { name });
    if (enabled) await waitFor(() => expect(button).toBeEnabled());
    else {
      expect(button).toBeDisabled();
      expect(button).toHaveAttribute('title', BUTTON_REASONS.liquidated);
    }
  }
}

/** Waits for the dashboard to show the ratio at the current price. */
const dashboardAt = (ratio: string) =>
  screen.findByRole(
    'group',
    { name: new RegExp(`^Collateral ratio ${ratio}`) },
    { timeout: 5_000 },
  );

async function closeLiquidationModal(user: ReturnType<typeof userEvent.setup>) {
  const modal = await screen.findByRole(
    'dialog',
    { name: 'Vault in Liquidation' },
    { timeout: 5_000 },
  );
  await user.click(within(modal).getByRole('button', { name: 'Close' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
}

describe('liquidated vault on the dashboard (SPEC §4)', () => {
  it('at a ratio of 135% shows Liquidating..., the Vault in Liquidation modal and disables the four actions', async () => {
    // 1 BTC × 67,500 / 50,000 UNIT = 135%
    priceUsd = 67_500;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const modal = await screen.findByRole(
      'dialog',
      { name: 'Vault in Liquidation' },
      { timeout: 5_000 },
    );
    expect(modal).toHaveAccessibleDescription(
      'All actions are disabled until liquidation completes.',
    );
    // what happens next and what the owner can do
    expect(modal).toHaveTextContent(/What happens next: another vault repossesses this one/);
    expect(modal).toHaveTextContent(/What you can do: keep the UNIT you borrowed/);
    expect(screen.getByText('Liquidating...')).toBeInTheDocument();
    await closeLiquidationModal(user);
    await dashboardAt('135%');
    await expectActions(false);
    // a deposit cannot save a liquidated vault: the gauge offers no shortcut (it was a
    // disabled one)
    expect(screen.queryByRole('button', { name: 'Deposit to improve health' })).toBeNull();
  });

  it('stays liquidated when the price recovers, by its session marker', async () => {
    priceUsd = 67_500;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { queryClient } = renderApp('/');
    await closeLiquidationModal(user);
    const marker = Number(sessionStorage.getItem(MARKER));
    expect(nowSeconds() - marker).toBeLessThan(60);

    priceUsd = 95_000;
    await queryClient.invalidateQueries({ queryKey: ['bitcoin-price'] });
    await dashboardAt('190%, Moderate');
    expect(screen.getByText('Liquidating...')).toBeInTheDocument();
    await expectActions(false);
    expect(sessionStorage.getItem(MARKER)).toBe(String(marker));
  });

  it.each([
    ['under 6 hours old keeps', LIQUIDATED_MARKER_TTL_SECONDS - 10, true],
    ['over 6 hours old does not keep', LIQUIDATED_MARKER_TTL_SECONDS + 10, false],
  ])('a marker %s a healthy vault liquidated', async (_label, age, stays) => {
    sessionStorage.setItem(MARKER, String(nowSeconds() - age));
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    if (stays) {
      await closeLiquidationModal(user);
      await dashboardAt('190%, Moderate');
      expect(screen.getByText('Liquidating...')).toBeInTheDocument();
      await expectActions(false);
    } else {
      await dashboardAt('190%, Moderate');
      await expectActions(true);
      expect(screen.queryByText('Liquidating...')).not.toBeInTheDocument();
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    }
  });

  it('is liquidated at any price once the liquidated list has it, without a marker', async () => {
    liquidations = [{ ...liquidated, vault_id: vault.vault_id, name: vault.name }];
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    await closeLiquidationModal(user);
    await dashboardAt('190%, Moderate');
    expect(screen.getByText('Liquidating...')).toBeInTheDocument();
    await expectActions(false);
    expect(sessionStorage.getItem(MARKER)).toBeNull();
  });
});

describe('/liquidations', () => {
  const row = async () =>
    (await screen.findByRole('cell', { name: 'Sunk' }, { timeout: 5_000 })).closest('tr')!;

  /** /liquidations with the wallet's own vault: Repossess on 'Sunk' opens its review. */
  async function openRepossess() {
    const user = userEvent.setup();
    renderApp('/liquidations', { execute });
    const repossess = within(await row()).getByRole('button', { name: 'Repossess' });
    await waitFor(() => expect(repossess).toBeEnabled());
    await user.click(repossess);
    // The repossess flow's drawer: its review step, titled by the flow declaration.
    const dialog = await screen.findByRole('dialog', { name: 'Repossess' });
    expect(within(dialog).getByText('Sunk')).toBeInTheDocument();
    return { user, dialog };
  }

  it('lists a liquidated vault, with Repossess disabled and why without a wallet', async () => {
    liquidations = [liquidated];
    const user = userEvent.setup();
    renderApp('/liquidations');
    const sunk = await row();
    expect(sunk).toHaveTextContent('0.1 BTC');
    expect(sunk).toHaveTextContent('7,000.00 UNIT');
    expect(sunk).toHaveTextContent('$94,500.00');
    const repossess = within(sunk).getByRole('button', { name: 'Repossess' });
    expect(repossess).toBeDisabled();
    expect(repossess).toHaveAttribute('title', 'Connect a wallet first');
    // a tap on a phone tells the same
    await user.click(repossess.parentElement!);
    expect(within(sunk).getByRole('status')).toHaveTextContent('Connect a wallet first');
  });

  it('disables Repossess for a wallet without a vault of its own', async () => {
    liquidations = [liquidated];
    scenario.vault = null;
    fakeWallet.connectAs();
    renderApp('/liquidations');
    const repossess = within(await row()).getByRole('button', { name: 'Repossess' });
    expect(repossess).toBeDisabled();
    expect(repossess).toHaveAttribute('title', 'Repossessing needs an active vault of your own');
  });

  it('says when no vault is in liquidation', async () => {
    renderApp('/liquidations');
    expect(
      await screen.findByText('No vault is in liquidation.', {}, { timeout: 5_000 }),
    ).toBeInTheDocument();
  });

  it("prices the claim's network fee with the liquidated vault's deepest liquidation leaf", async () => {
    // A guardian-network vault with three oracle commitments: its liquidation leaf has 3 sibling
    // hashes, 64 witness bytes more than a one-oracle vault's (@unit/protocol estimateVsize).
    liquidations = [{ ...liquidated, oracles: 3 }];
    fakeWallet.connectAs();
    const { dialog } = await openRepossess();
    // 502 vB at the Fast 5 sat/vB = 2,510 sats; a one-oracle vault's 486 vB would be 2,430
    expect(within(dialog).getByTestId('network-fee')).toHaveTextContent(
      'Estimated network cost: 0.0000251 BTC',
    );
  });

  it("prices a one-oracle vault's claim with its two-leaf tree", async () => {
    liquidations = [liquidated];
    fakeWallet.connectAs();
    const { dialog } = await openRepossess();
    expect(within(dialog).getByTestId('network-fee')).toHaveTextContent(
      'Estimated network cost: 0.0000243 BTC',
    );
  });

  it('reviews the claim (85% collateral, the debt, 15% tax) and submits it', async () => {
    liquidations = [liquidated];
    fakeWallet.connectAs();
    execute.mockImplementation(async (_action, _input, onProgress) => {
      onProgress(2);
      onProgress(4);
      return { txid: '6'.repeat(64), vaultTxid: '6'.repeat(64) };
    });
    const { user, dialog } = await openRepossess();
    const value = (term: string) => within(dialog).getByText(term).nextElementSibling;
    expect(value('Collateral you take')).toHaveTextContent('0.085 BTC');
    expect(value('Debt you take on')).toHaveTextContent('7,000.00 UNIT');
    expect(value('Repossession tax (15%)')).toHaveTextContent('0.015 BTC');
    // (1 + 0.085) BTC × 95,000 / (50,000 + 7,000) UNIT = 180.8%
    expect(value('Your collateral ratio after')).toHaveTextContent('181%');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();

    const asked = liquidationsAsked;
    await user.click(within(dialog).getByRole('button', { name: 'Repossess' }));
    // The drawer stays open through the tracker to the success step, all four lines done.
    // The drawer's title and the success step both say it.
    expect(
      await within(dialog).findAllByRole('heading', { name: 'Liquidation Claim Submitted' }),
    ).toHaveLength(2);
    const tracker = within(dialog).getByRole('list', { name: 'Progress' });
    expect(within(tracker).getAllByRole('listitem')).toHaveLength(4);
    expect(within(tracker).getAllByText('✓')).toHaveLength(4);
    expect(within(dialog).getByRole('link', { name: /View transaction 66666666/ })).toHaveAttribute(
      'href',
      `${config.explorerUrl}/tx/${'6'.repeat(64)}`,
    );
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute).toHaveBeenCalledWith(
      'repossess',
      expect.objectContaining({
        sats: 8_500_000n,
        cents: 700_000n,
        target: { kind: 'repossess', vault: liquidated },
      }),
      expect.any(Function),
      expect.objectContaining({
        config: expect.objectContaining({ guardianUrl: config.guardianUrl }),
        wallet: expect.objectContaining({ account: FAKE_ACCOUNT }),
      }),
    );
    // the list is asked again: the claimed vault changes state
    await waitFor(() => expect(liquidationsAsked).toBeGreaterThan(asked));
    // Like every flow's, the claim is a pending entry of this wallet until a block confirms it.
    const stored = parsePendingList(
      localStorage.getItem(pendingStorageKey(FAKE_ACCOUNT.satsAddress)),
    );
    expect(stored).toMatchObject([
      { type: 'repossess', status: 'In Progress', transactionId: '6'.repeat(64), amount: '700000' },
    ]);
  });

  it('refuses a claim that would take the claimant under 160%', async () => {
    // 30,000 UNIT of debt: (1 + 0.085) BTC × 95,000 / 80,000 UNIT = 128.8%
    const heavy = { ...liquidated, unit_borrowed: 3_000_000 };
    liquidations = [heavy];
    fakeWallet.connectAs();
    const { user, dialog } = await openRepossess();
    expect(
      within(dialog).getByText('Your collateral ratio after').nextElementSibling,
    ).toHaveTextContent('129%');
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Your vault would fall under 160%: deposit BTC first.',
    );
    const confirm = within(dialog).getByRole('button', { name: 'Repossess' });
    expect(confirm).toBeDisabled();
    await user.click(confirm);
    expect(execute).not.toHaveBeenCalled();
  });
});

describe("liquidation, start to finish, on the owner's page", () => {
  // The fixture's vault: 1 BTC against 50,000.00 UNIT, liquidation price 67,500.00 USD. The oracle
  // fell to 67,000.12 an hour ago: 1 × 67,000 / 50,000 = 134%.
  const LIQUIDATED_AT = nowSeconds() - 3600;
  const CLAIM_TXID = '5'.repeat(64);
  const opened = record(
    1,
    LIQUIDATED_AT - 86_400,
    'o',
    100_000_000,
    5_000_000,
    100_000_000,
    5_000_000,
  );
  const l: VaultHistoryRecordDto = {
    ...record(2, LIQUIDATED_AT, 'l', 100_000_000, 5_000_000, 100_000_000, 5_000_000),
    oracle_price: 67_000,
    transaction_id: vault.vault_txid,
    liquidation_hash: 'a'.repeat(40),
    liquidation_threshold: 6_750_000,
  };
  const x: VaultHistoryRecordDto = {
    ...record(3, LIQUIDATED_AT + 1800, 'x', 0, 0, 100_000_000, 5_000_000),
    transaction_id: CLAIM_TXID,
  };
  const serverRecord: VaultLiquidationDto = {
    vault_id: vault.vault_id,
    liquidated_at: LIQUIDATED_AT,
    threshold_cents: 6_750_000,
    price_cents: 6_700_012,
    btc_locked: 100_000_000,
    unit_borrowed: 5_000_000,
    status: 'liquidated',
    claimant: null,
    claim_txid: null,
  };
  const listed: LiquidatedVaultDto = {
    ...liquidated,
    vault_id: vault.vault_id,
    name: vault.name,
    btc_locked: 100_000_000,
    unit_borrowed: 5_000_000,
    threshold_cents: 6_750_000,
    liquidated_at: LIQUIDATED_AT,
  };

  function answer(records: VaultHistoryRecordDto[], dto: VaultLiquidationDto) {
    server.use(
      http.get('*/api/vaults/:id/history', historyPages(records)),
      http.get('*/api/vaults/:id/liquidation', () => HttpResponse.json(dto)),
    );
  }
  const outcome = () => screen.findByRole('region', { name: /this vault/i }, { timeout: 5_000 });
  const figure = (card: HTMLElement, term: string) =>
    within(card).getByText(term).nextElementSibling;

  it('while pending: the price, the state then, the transaction, and the modal', async () => {
    scenario.vault = { ...vault, status: 'liquidated' };
    liquidations = [listed];
    answer([opened, l], serverRecord);
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    await closeLiquidationModal(user);
    const card = await outcome();
    expect(card).toHaveAccessibleName('What happened to this vault');
    // the exact oracle price from the server's record, the figures from the `l` record
    expect(card).toHaveTextContent(
      "the oracle price of BTC fell to $67,000.12, at or under this vault's liquidation price of $67,500.00. Its collateral ratio was 134%",
    );
    expect(figure(card, 'Liquidation price')).toHaveTextContent('$67,500.00');
    expect(figure(card, 'Collateral then')).toHaveTextContent('1 BTC');
    expect(figure(card, 'Debt then')).toHaveTextContent('50,000.00 UNIT');
    expect(within(card).getByRole('link', { name: /View transaction eeeeeeee/ })).toHaveAttribute(
      'href',
      `${config.explorerUrl}/tx/${vault.vault_txid}`,
    );
    expect(card).toHaveTextContent('The 50,000.00 UNIT you borrowed stay yours.');
    expect(screen.getByText('Liquidating...')).toBeInTheDocument();
    // the link is the vault output the claim will spend, said so: not the liquidation's own
    expect(card).toHaveTextContent(
      "Vault output being claimed (made by the vault's last transaction before the liquidation)",
    );

    // The cards agree with the modal: nothing is owed, the collateral goes to a claimant.
    const unitCard = screen.getByRole('region', { name: 'UNIT loan balance' });
    expect(within(unitCard).getByTestId('unit-debt')).toHaveTextContent('0.00 UNIT');
    expect(unitCard).toHaveTextContent(
      'Nothing is owed: the 50,000.00 UNIT debt goes to whoever repossesses the vault, and the UNIT you borrowed is yours to keep.',
    );
    expect(unitCard).not.toHaveTextContent(/repay the whole debt|short of repaying/);
    expect(within(unitCard).queryByRole('progressbar')).toBeNull();
    const btcCard = screen.getByRole('region', { name: 'BTC deposited' });
    expect(btcCard).toHaveTextContent(
      'Liquidated: this collateral is no longer yours. Whoever repossesses the vault takes 0.85 BTC (85%) and the treasury 0.15 BTC (15%).',
    );
    const priceCard = screen.getByRole('region', { name: 'Liquidation price' });
    expect(within(priceCard).queryByTestId('liquidation-distance')).toBeNull();
    expect(priceCard).toHaveTextContent('so the vault was liquidated');

    // The history's liquidation row names what its link is.
    const table = screen.getByRole('region', { name: 'Vault transactions' });
    const row = await within(table).findByRole('row', { name: /Vault Liquidation/ });
    expect(row).toHaveTextContent('The date links to the vault output being claimed.');
    expect(
      within(row).getByRole('link', { name: /view the vault output being claimed/ }),
    ).toHaveAttribute('href', `${config.explorerUrl}/tx/${vault.vault_txid}`);
  });

  it('after a repossess: who claimed it and when, what the owner keeps, no modal, a way on', async () => {
    // The claimed vault holds nothing; its key still finds it.
    scenario.vault = { ...vault, status: 'repossessed', btc_locked: 0, unit_borrowed: 0 };
    liquidations = [{ ...listed, status: 'repossessed' }];
    answer([opened, l, x], {
      ...serverRecord,
      status: 'repossessed',
      claimant: { vault_id: 'c'.repeat(64), vault_tag: 'cccccccc', name: 'Lucky' },
      claim_txid: CLAIM_TXID,
    });
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/');
    const card = await outcome();
    await waitFor(() =>
      expect(figure(card, 'Claimed by')).toHaveTextContent('Lucky (vault cccccccc)'),
    );
    expect(card).toHaveAccessibleName('This vault was liquidated and repossessed');
    expect(within(card).getByRole('link', { name: /View transaction 55555555/ })).toHaveAttribute(
      'href',
      `${config.explorerUrl}/tx/${CLAIM_TXID}`,
    );
    // 15% of 1 BTC to the treasury, the rest to the claimant; the UNIT stays with the owner
    expect(card).toHaveTextContent(
      'The 50,000.00 UNIT you borrowed are yours to keep: the debt went to the claimant with the collateral, so nothing is owed on this vault. The 1 BTC of collateral is gone: 0.85 BTC to the claimant and 0.15 BTC (15%) to the treasury. Your wallet holds 10,000.00 UNIT now.',
    );
    expect(card).toHaveTextContent('Vault output claimed (made by');
    const unitCard = screen.getByRole('region', { name: 'UNIT loan balance' });
    expect(unitCard).toHaveTextContent(
      'Nothing is owed: the 50,000.00 UNIT debt went to the claimant with the collateral, and the UNIT you borrowed is yours to keep.',
    );
    expect(screen.getByRole('region', { name: 'BTC deposited' })).toHaveTextContent(
      'Repossessed: the collateral went 0.85 BTC to the claimant and 0.15 BTC (15%) to the treasury.',
    );
    // SPEC §2: the modal and 'Liquidating...' belong to a liquidation still pending
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(`${vault.name}Repossessed`);
    expect(screen.queryByText('Liquidating...')).not.toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await expectActions(false);
    // the gauge reads N/A with no marker (it sat at the Healthy end) and no shortcut
    const gauge = screen.getByRole('region', { name: 'Vault health' });
    expect(within(gauge).getByRole('group', { name: 'Collateral ratio N/A' })).toBeInTheDocument();
    expect(within(gauge).queryByTestId('gauge-marker')).toBeNull();
    expect(within(gauge).queryByRole('button', { name: 'Deposit to improve health' })).toBeNull();

    // One live vault per key: the repossessed vault is closed, this wallet opens the next.
    await user.click(within(card).getByRole('button', { name: 'Open a new vault' }));
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toHaveTextContent(
      'Name Your Vault',
    );
  });

  it('opens a new vault with the same wallet after a repossess, then shows that one', async () => {
    const closed = { ...vault, status: 'repossessed' as const, btc_locked: 0, unit_borrowed: 0 };
    const NEW_ID = 'd'.repeat(64);
    const fresh = {
      ...vault,
      vault_id: NEW_ID,
      vault_tag: 'dddddddd',
      vault_txid: NEW_ID,
      name: 'Second',
      btc_locked: 10_000_000,
      unit_borrowed: 10_000,
    };
    scenario.vault = closed;
    liquidations = [{ ...listed, status: 'repossessed' }];
    let freshConfirmed = false;
    let freshAsked = 0;
    server.use(
      http.get('*/api/vaults/:id/history', (info) => {
        if (info.params.id !== NEW_ID) return historyPages([opened, l, x])(info);
        freshAsked++;
        return historyPages([
          {
            ...record(9, nowSeconds(), 'o', 10_000_000, 10_000, 10_000_000, 10_000),
            vault_id: NEW_ID,
            transaction_id: NEW_ID,
            confirmed: freshConfirmed,
          },
        ])(info);
      }),
      http.get('*/api/vaults/:id/liquidation', ({ params }) =>
        params.id === NEW_ID
          ? HttpResponse.json({ error: 'Not liquidated', code: 'not_found' }, { status: 404 })
          : HttpResponse.json({ ...serverRecord, status: 'repossessed', claim_txid: CLAIM_TXID }),
      ),
    );
    server.use(
      // The create flow tells Telegram subscribers (notify.test.tsx covers it).
      http.post('*/api/notify', () =>
        HttpResponse.json({ queued: 0, enabled: false }, { status: 202 }),
      ),
      http.get('*/api/vaults/by-pubkey/:pubkey/closed', () =>
        HttpResponse.json(
          scenario.vault?.vault_id === NEW_ID
            ? [
                {
                  vault_id: vault.vault_id,
                  vault_tag: vault.vault_tag,
                  name: vault.name,
                  created_at: LIQUIDATED_AT - 86_400,
                },
              ]
            : [],
        ),
      ),
    );
    const execute: ExecuteFlow = async (action) => {
      expect(action).toBe('create');
      return { txid: NEW_ID, vaultTxid: NEW_ID, vaultId: NEW_ID };
    };
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/', { execute });
    const card = await outcome();
    await user.click(within(card).getByRole('button', { name: 'Open a new vault' }));
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    await user.type(within(drawer).getByLabelText('Vault name'), 'Second');
    await user.click(within(drawer).getByRole('button', { name: 'Continue' }));
    // The wallet stayed connected: no Connect Wallet step, straight to the amounts.
    await user.type(await within(drawer).findByLabelText('Deposit BTC'), '0.1');
    await user.type(within(drawer).getByLabelText('Borrow UNIT'), '100');
    await user.click(within(drawer).getByRole('button', { name: 'Preview' }));
    await user.click(await screen.findByRole('button', { name: 'Confirm' }));

    // Under construction until the NEW vault's opening confirms: the closed vault's own confirmed
    // opening says nothing about this one.
    expect(
      await screen.findByText(CONTENT.vaultPage.creationPending, {}, { timeout: 5_000 }),
    ).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(
      screen.queryByRole('heading', { level: 1, name: CONTENT.vaultPage.created }),
    ).not.toBeInTheDocument();
    // The guardian has stored the new vault: the key finds it (the page refreshes the vault 5 s
    // after a create), and its opening is still unconfirmed.
    scenario.vault = fresh;
    await waitFor(() => expect(freshAsked).toBeGreaterThan(0), { timeout: 8_000 });
    expect(
      screen.queryByRole('heading', { level: 1, name: CONTENT.vaultPage.created }),
    ).not.toBeInTheDocument();
    freshConfirmed = true;
    await user.click(
      await screen.findByRole('button', { name: CONTENT.vaultPage.goToVault }, { timeout: 8_000 }),
    );
    // The new vault's dashboard, its own history, no outcome of the closed one.
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('Second');
    expect(screen.queryByRole('region', { name: /this vault/i })).not.toBeInTheDocument();
    await expectActions(true);
    // The closed vault stays reachable from here, with its outcome, and no second 'new vault'.
    const earlier = await screen.findByRole('region', { name: 'Earlier vaults of this wallet' });
    expect(earlier).toHaveTextContent(`${vault.name} (vault ${vault.vault_tag}, repossessed)`);
    await user.click(within(earlier).getByRole('button', { name: 'What happened' }));
    const old = await within(earlier).findByRole('region', {
      name: 'This vault was liquidated and repossessed',
    });
    expect(old).toHaveTextContent('The 50,000.00 UNIT you borrowed are yours to keep');
    expect(within(old).queryByRole('button', { name: 'Open a new vault' })).not.toBeInTheDocument();
  }, 30_000);

  it('opens the create drawer from a create-vault link for a wallet whose vault is closed', async () => {
    scenario.vault = { ...vault, status: 'repossessed', btc_locked: 0, unit_borrowed: 0 };
    liquidations = [{ ...listed, status: 'repossessed' }];
    answer([opened, l, x], { ...serverRecord, status: 'repossessed', claim_txid: CLAIM_TXID });
    fakeWallet.connectAs();
    renderApp('/?action=create-vault');
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toHaveTextContent(
      'Name Your Vault',
    );
  });

  it('keeps the modal away on every later load once repossessed', async () => {
    scenario.vault = { ...vault, status: 'repossessed', btc_locked: 0, unit_borrowed: 0 };
    liquidations = [{ ...listed, status: 'repossessed' }];
    // a session marker from when it was liquidated
    sessionStorage.setItem(MARKER, String(nowSeconds() - 600));
    answer([opened, l, x], { ...serverRecord, status: 'repossessed', claim_txid: CLAIM_TXID });
    fakeWallet.connectAs();
    renderApp('/');
    await outcome();
    await dashboardAt('N/A');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByText('Liquidating...')).not.toBeInTheDocument();
  });
});
