// Speed-up from the pending banner: the drawer shows the transaction's current fee rate and the
// new one (the fastest tier, at least what BIP-125 asks), runs the speed-up flow, and the pending
// entry then follows the replacement's txid.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  parsePendingList,
  pendingStorageKey,
  type PendingTransaction,
  type TelegramNotifyDto,
} from '@unit/protocol';
import type { ExecuteFlow } from '../src/flows/flow-types';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const KEY = pendingStorageKey(FAKE_ACCOUNT.satsAddress);
const ORIGINAL = '4'.repeat(64);
const REPLACEMENT = '5'.repeat(64);

const pendingDeposit = (ageSeconds: number): PendingTransaction => ({
  date: Math.floor(Date.now() / 1000) - ageSeconds,
  type: 'deposit',
  amount: '100000',
  amountUnit: 'BTC',
  status: 'In Progress',
  transactionId: ORIGINAL,
  vault_txid: ORIGINAL,
  btcInVault: '100000',
  unitInVault: '0',
  healthFactorBefore: null,
  healthFactorAfter: null,
  healthStatusBefore: null,
  healthStatusAfter: null,
  isFullRepay: false,
});

const execute = vi.fn<ExecuteFlow>();
let fastest = 1;
let notices: TelegramNotifyDto[] = [];

beforeEach(() => {
  execute.mockReset();
  fastest = 1;
  notices = [];
  server.use(
    // The notice is the signed-in owner's to send.
    http.get('*/api/auth/session', () => HttpResponse.json({ address: FAKE_ACCOUNT.satsAddress })),
    http.post('*/api/notify', async ({ request }) => {
      notices.push((await request.json()) as TelegramNotifyDto);
      return HttpResponse.json({ queued: 1, enabled: true }, { status: 202 });
    }),
    // Sent at 1 sat/vB: 200 sats for 200 vB.
    http.get(`*/esplora/tx/${ORIGINAL}`, () =>
      HttpResponse.json({ fee: 200, weight: 800, status: { confirmed: false } }),
    ),
    http.get('*/mempool/devnet/api/v1/fees/recommended', () =>
      HttpResponse.json({
        fastestFee: fastest,
        halfHourFee: 1,
        hourFee: 1,
        economyFee: 1,
        minimumFee: 1,
      }),
    ),
  );
});

describe('speed-up', () => {
  it('offers the BIP-125 minimum when the tiers are no higher, and follows the replacement', async () => {
    localStorage.setItem(KEY, JSON.stringify([pendingDeposit(60)]));
    fakeWallet.connectAs();
    execute.mockImplementation(async (_action, _input, onProgress) => {
      onProgress(2);
      onProgress(4);
      return { txid: REPLACEMENT, vaultTxid: REPLACEMENT, replacedTxid: ORIGINAL };
    });
    const user = userEvent.setup();
    renderApp('/', { execute });
    // A minute old: the button, not yet the line that says it is slow.
    await user.click(await screen.findByRole('button', { name: 'Speed up' }, { timeout: 5_000 }));
    expect(screen.queryByText(/Still waiting for a block/)).toBeNull();
    const dialog = await screen.findByRole('dialog', { name: 'Speed up' }, { timeout: 5_000 });
    const value = (term: string) => within(dialog).getByText(term).nextElementSibling;
    await waitFor(() => expect(value('Current fee rate')).toHaveTextContent('1 sat/vB'));
    // 200 sats + 1 sat/vB x 200 vB = 400 sats: 2 sat/vB.
    expect(value('New fee rate')).toHaveTextContent('2 sat/vB');
    expect(value('Extra fee (about)')).toHaveTextContent('0.000002 BTC');

    await user.click(within(dialog).getByRole('button', { name: 'Speed up' }));
    expect(
      await within(dialog).findAllByRole('heading', { name: 'Transaction Sped Up' }),
    ).toHaveLength(2);
    expect(execute).toHaveBeenCalledWith(
      'speedup',
      expect.objectContaining({
        feeRate: 2,
        sats: 100_000n,
        target: { kind: 'speedup', txid: ORIGINAL, action: 'deposit' },
      }),
      expect.any(Function),
      expect.anything(),
    );
    // One entry, now the replacement's: nothing is counted twice.
    expect(parsePendingList(localStorage.getItem(KEY))).toMatchObject([
      { transactionId: REPLACEMENT, vault_txid: REPLACEMENT, status: 'In Progress' },
    ]);
    // SPEC §7's Telegram notice, 5 s on: the deposit, under its new txid.
    await waitFor(() => expect(notices).toHaveLength(1), { timeout: 8_000 });
    expect(notices[0]).toMatchObject({
      tx_action: 'deposit',
      tx_id: REPLACEMENT,
      btc_amount: 100_000,
      address: FAKE_ACCOUNT.satsAddress,
    });
  }, 15_000);

  it('offers the fastest tier when it is above the minimum, and says when the wait is long', async () => {
    fastest = 12;
    localStorage.setItem(KEY, JSON.stringify([pendingDeposit(20 * 60)]));
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/', { execute });
    expect(await screen.findByText(/Still waiting for a block/)).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Speed up' }, { timeout: 5_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Speed up' }, { timeout: 5_000 });
    await waitFor(() =>
      expect(within(dialog).getByText('New fee rate').nextElementSibling).toHaveTextContent(
        '12 sat/vB',
      ),
    );
  });
});
