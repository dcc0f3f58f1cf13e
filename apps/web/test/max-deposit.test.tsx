// SPEC §5 and §8: Max of a deposit or a vault opening is refined from the wallet's UTXOs, and says
// 'Cannot get utxo for max deposit amount' when it cannot be.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  feeFor,
  parseRuneId,
  transactionWeight,
  unitRunestoneScript,
  weightToVsize,
  type InputKind,
} from '@unit/bitcoin';
import {
  defaultPaymentInputs,
  maxBorrowCents,
  maxDepositSats,
  operationCostSats,
  sats,
  satsToBtcString,
  type UtxoDto,
} from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { config, price, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';
import { addressesOf, userKeys } from './wallet/keys';
import type { ExecuteFlow, FlowInput } from '../src/flows/flow-types';
import type { WalletAccount } from '../src/wallet';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

// The refinement reads real addresses: a P2WPKH payment address and a P2TR runes address.
const keys = addressesOf(userKeys);
const account: WalletAccount = {
  satsAddress: keys.payment.address,
  satsPublicKey: keys.payment.publicKey,
  vaultPubkey: vault.vault_pubkey,
  runesAddress: keys.taproot.address,
  runesPublicKey: keys.taproot.publicKey,
};

/** The Fast rate of the fee fixture (5 sat/vB, far under the 1000 USD cap at 95,000 USD). */
const FEE_RATE = 5;
const UTXOS = [30_000_000, 19_990_000];
const utxoDto = (value: number, i: number): UtxoDto => ({
  txid: String(i + 1).repeat(64),
  vout: 0,
  value,
  status: { confirmed: true },
});
const answerUtxos = (values: number[]) =>
  server.use(
    http.get('*/ordinals/address/:address/utxos', () => HttpResponse.json(values.map(utxoDto))),
  );

// Output scripts by length: P2TR vault/postage/treasury 34 bytes, the state record 65.
const P2TR = new Uint8Array(34);
const STATE = new Uint8Array(65);
/** An opening's record also carries the vault key (version 2): OP_RETURN OP_PUSHDATA1 95 bytes. */
const OPENING_STATE = new Uint8Array(98);
const feeOf = (inputs: InputKind[], outputs: Uint8Array[]) =>
  feeFor(weightToVsize(transactionWeight(inputs, outputs)), FEE_RATE);
const total = UTXOS.reduce((a, b) => a + BigInt(b), 0n);
const payments: InputKind[] = UTXOS.map(() => 'p2wpkh');

/** Deposit: vault, P, P -> vault, S; no change, so the whole UTXO sum less that fee. */
const expectedDepositMax = total - feeOf(['vault-update', ...payments], [P2TR, STATE]);

beforeEach(() => {
  fakeWallet.connectAs(account);
});

async function openDeposit(execute?: ExecuteFlow) {
  renderApp('/?action=deposit', { execute });
  const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
  await waitFor(() => expect(within(drawer).getByText(/^Available: 0\.4/)).toBeInTheDocument());
  return { drawer, input: within(drawer).getByLabelText('Deposit amount') };
}

describe('Max in the deposit drawer', () => {
  it('sets the maximum refined from the UTXOs, which is what the deposit sends', async () => {
    answerUtxos(UTXOS);
    let sent: FlowInput | null = null;
    const execute: ExecuteFlow = async (_action, input) => {
      sent = input;
      return { txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) };
    };
    const user = userEvent.setup();
    const { drawer, input } = await openDeposit(execute);
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    const btc = satsToBtcString(expectedDepositMax);
    await waitFor(() => expect(input).toHaveValue(btc));
    expect(within(drawer).getByText(`Available: ${btc} BTC`)).toBeInTheDocument();
    expect(within(drawer).queryByRole('alert')).not.toBeInTheDocument();
    await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
    await waitFor(() => expect(sent).not.toBeNull());
    expect(sent!.sats).toBe(expectedDepositMax);
    expect(sent!.feeRate).toBe(FEE_RATE);
  });

  it('refines the maximum when the slider reaches 100%', async () => {
    answerUtxos(UTXOS);
    const { drawer, input } = await openDeposit();
    const thumb = within(drawer).getByRole('slider', {
      name: 'Deposit amount percent of maximum',
    });
    fireEvent.keyDown(thumb, { key: 'End' });
    await waitFor(() => expect(input).toHaveValue(satsToBtcString(expectedDepositMax)));
  });

  it('works the maximum out again at a new fee rate', async () => {
    answerUtxos(UTXOS);
    const user = userEvent.setup();
    const { drawer, input } = await openDeposit();
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    await waitFor(() => expect(input).toHaveValue(satsToBtcString(expectedDepositMax)));
    await user.click(within(drawer).getByRole('radio', { name: /Slow/ }));
    // hourFee 2 sat/vB: a smaller fee, so a larger maximum
    const slow =
      total -
      feeFor(weightToVsize(transactionWeight(['vault-update', ...payments], [P2TR, STATE])), 2);
    await waitFor(() => expect(input).toHaveValue(satsToBtcString(slow)));
  });

  it('keeps Max through a switch to USD, sending the exact sats', async () => {
    answerUtxos(UTXOS);
    let sent: FlowInput | null = null;
    const execute: ExecuteFlow = async (_action, input) => {
      sent = input;
      return { txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) };
    };
    const user = userEvent.setup();
    const { drawer, input } = await openDeposit(execute);
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    await waitFor(() => expect(input).toHaveValue(satsToBtcString(expectedDepositMax)));
    await user.click(within(drawer).getByRole('button', { name: 'USD' }));
    // 0.49988… BTC at 95,000 USD
    expect(input).toHaveValue('47488.73');
    await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
    await waitFor(() => expect(sent).not.toBeNull());
    expect(sent!.sats).toBe(expectedDepositMax);
  });

  it("says 'Cannot get utxo for max deposit amount' when the UTXOs cannot be fetched", async () => {
    server.use(
      http.get('*/ordinals/address/:address/utxos', () =>
        HttpResponse.json({ error: 'unavailable' }, { status: 503 }),
      ),
    );
    const user = userEvent.setup();
    const { drawer } = await openDeposit();
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    expect(await within(drawer).findByRole('alert')).toHaveTextContent(
      'Cannot get utxo for max deposit amount',
    );
    expect(within(drawer).getByRole('button', { name: 'Deposit' })).toBeDisabled();
    // Typing an amount takes its place.
    await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
    expect(within(drawer).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(drawer).getByRole('button', { name: 'Deposit' })).toBeEnabled();
  });

  it('says the same when no UTXO can pay for its own spending', async () => {
    answerUtxos([]);
    const user = userEvent.setup();
    const { drawer } = await openDeposit();
    await user.click(within(drawer).getByRole('button', { name: 'Max' }));
    expect(await within(drawer).findByRole('alert')).toHaveTextContent(
      'Cannot get utxo for max deposit amount',
    );
  });

  it('reduces an amount within the dust limit below the maximum, to avoid dust change', async () => {
    const user = userEvent.setup();
    const { drawer, input } = await openDeposit();
    const cost = operationCostSats({
      action: 'deposit',
      paymentInputs: defaultPaymentInputs('deposit'),
      feeRate: FEE_RATE,
      postageSats: config.constants.unitPostageSats,
    });
    const max = maxDepositSats({
      walletSats: 50_000_000,
      operationCostSats: cost,
      forCreate: false,
    });
    await user.type(input, satsToBtcString(max - 100n));
    await user.tab();
    expect(input).toHaveValue(satsToBtcString(max - 546n));
    expect(within(drawer).queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('Max in the create drawer', () => {
  it('sets the refined maximum of a vault opening: the UNIT postage comes out too', async () => {
    scenario.vault = null;
    answerUtxos(UTXOS);
    const user = userEvent.setup();
    renderApp('/?action=create-vault');
    const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
    await user.type(within(drawer).getByLabelText('Vault name'), 'Mine');
    await user.click(within(drawer).getByRole('button', { name: 'Continue' }));
    const input = await within(drawer).findByLabelText('Deposit BTC');
    await user.click(within(drawer).getAllByRole('button', { name: 'Max' })[0]!);
    // treasury, P, P -> vault, postage, treasury change, runestone (sized for the largest
    // borrow the UTXOs could back), S
    const runestone = unitRunestoneScript(
      parseRuneId(config.unitRuneId),
      maxBorrowCents(sats(total), 0, price.USD),
    );
    const expected =
      total -
      BigInt(config.constants.unitPostageSats) -
      feeOf(['p2tr', ...payments], [P2TR, P2TR, P2TR, runestone, OPENING_STATE]);
    await waitFor(() => expect(input).toHaveValue(satsToBtcString(expected)));
  });
});
