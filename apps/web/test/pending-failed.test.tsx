// A pending transaction that will never be mined (a claim its liquidated vault's owner beat by
// the exit, any other request the server failed after sending it): the app asks the server its
// fate on load and when the live stream says the vault changed, drops the entry, says once what
// happened in a full sentence, and the actions it held are enabled again.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse, sse } from 'msw';
import { EventSource as NodeEventSource } from 'eventsource';
import {
  failedSentence,
  parsePendingList,
  pendingStorageKey,
  PENDING_FAILED_TITLE,
  type TransactionFateDto,
} from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { history, pendingDeposit, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { historyPages, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

vi.stubGlobal('EventSource', NodeEventSource);

withNetworkEdge();

const KEY = pendingStorageKey(FAKE_ACCOUNT.satsAddress);
const CLAIM = 'c'.repeat(64);
const claim = pendingDeposit({
  date: Math.floor(Date.now() / 1000) - 120,
  type: 'repossess',
  amount: '100000',
  amountUnit: 'UNIT',
  transactionId: CLAIM,
  vault_txid: CLAIM,
});
const EXIT_WON =
  'Your claim of a liquidated vault did not go through: its owner took the vault back by its exit first. Your vault is as it was before the claim.';

type LiveMap = { vault: { vault_id: string; kind: string } };
type StreamClient = Parameters<Parameters<typeof sse<LiveMap>>[1]>[0]['client'];

let stream: StreamClient | null = null;
/** The server's answer for the claim, and how often it was asked. */
let fate: TransactionFateDto;
let asked = 0;

beforeEach(() => {
  stream = null;
  asked = 0;
  fate = { txid: CLAIM, status: 'pending', cause: null, reason: null };
  server.use(
    sse<LiveMap>('*/api/events', ({ client }) => {
      stream = client;
    }),
    http.get('*/api/transactions/:txid', ({ params }) => {
      asked++;
      return params.txid === CLAIM
        ? HttpResponse.json(fate)
        : HttpResponse.json({ error: 'unknown', code: 'not_found' }, { status: 404 });
    }),
  );
});

const stored = () => parsePendingList(localStorage.getItem(KEY));

describe('a pending transaction the server says will never be mined', () => {
  it('is dropped on load, said once in a full sentence, and the actions come back', async () => {
    fate = {
      txid: CLAIM,
      status: 'failed',
      cause: 'exit',
      reason:
        "the liquidated vault's owner left by the exit leaf: the repossession was never mined",
    };
    localStorage.setItem(KEY, JSON.stringify([claim]));
    fakeWallet.connectAs();
    const { unmount } = renderApp('/');
    expect(await screen.findByText(EXIT_WON)).toBeInTheDocument();
    expect(EXIT_WON).toBe(failedSentence('repossess', 'exit', fate.reason));
    expect(screen.getByText(PENDING_FAILED_TITLE)).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(EXIT_WON);
    expect(screen.queryByText('Finalizing...')).toBeNull();
    expect(stored()).toEqual([]);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Deposit' })).toBeEnabled());

    // Once: a reload has nothing left to ask about or to say.
    unmount();
    const calls = asked;
    renderApp('/');
    await screen.findByRole('button', { name: 'Deposit' });
    expect(screen.queryByText(EXIT_WON)).toBeNull();
    expect(asked).toBe(calls);
  });

  it('waits while the server says pending, and is told again when the vault changes', async () => {
    // The claimant's history holds the claim, unconfirmed, until the race is settled.
    const claimRecord = {
      ...history.at(-1)!,
      ...{ action: 'x' as const, transaction_id: CLAIM, confirmed: false },
      timestamp: Math.floor(Date.now() / 1000) - 100,
    };
    let records = [...history, claimRecord];
    server.use(
      http.get(
        '*/api/vaults/:id/history',
        historyPages(() => records),
      ),
    );
    localStorage.setItem(KEY, JSON.stringify([claim]));
    fakeWallet.connectAs();
    renderApp('/');
    expect(await screen.findByText('Finalizing...')).toBeInTheDocument();
    await waitFor(() => expect(asked).toBe(1));
    expect(screen.getByRole('button', { name: 'Deposit' })).toBeDisabled();
    await waitFor(() => expect(stream).not.toBeNull());

    // The chain settled the race the exit's way: the server failed the claim's request and
    // announced the claimant's vault, whose history no longer holds the claim.
    fate = { txid: CLAIM, status: 'failed', cause: 'other', reason: 'refused by the chain.' };
    records = [...history];
    stream!.send({ event: 'vault', data: { vault_id: vault.vault_id, kind: 'action' } });
    expect(
      await screen.findByText(failedSentence('repossess', 'other', 'refused by the chain.')),
    ).toHaveTextContent(
      'Your claim of a liquidated vault did not go through, because refused by the chain. It will never be mined',
    );
    expect(stored()).toEqual([]);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Deposit' })).toBeEnabled());
  });

  it('keeps an entry the server does not know, and one it says is confirmed', async () => {
    const unknown = { ...claim, transactionId: 'd'.repeat(64), vault_txid: null };
    fate = { txid: CLAIM, status: 'confirmed', cause: null, reason: null };
    localStorage.setItem(KEY, JSON.stringify([claim, unknown]));
    fakeWallet.connectAs();
    renderApp('/');
    await waitFor(() => expect(asked).toBe(2));
    expect(screen.getByText('Finalizing...')).toBeInTheDocument();
    expect(stored()).toHaveLength(2);
    expect(screen.queryByText(PENDING_FAILED_TITLE)).toBeNull();
  });
});
