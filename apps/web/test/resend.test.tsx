// A request the network never took offers "Send again" in the tracker: the same signed
// request goes again (no new signature, no new build), until it expires; after that, Start over.
// Any other failure offers nothing of the kind.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RESEND_COPY, parsePendingList, pendingStorageKey } from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { executeFlow } from '../src/flows/guardian-client';
import type { ExecuteFlow, FlowInput } from '../src/flows/flow-types';
import { attachResend, type SignedResend } from '../src/flows/resend';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

beforeEach(() => fakeWallet.connectAs());

/** What the guardian client throws: the guardian's answer, with its code. */
class Answer extends Error {
  constructor(readonly code: string) {
    super(code === 'chain_unavailable' ? 'The Bitcoin network cannot be reached' : code);
  }
}

/**
 * The first attempt builds and signs (once), then fails with `code`, keeping its signed request as
 * the guardian client does; a re-send goes through the app's own executeFlow to that request.
 */
function failingOnce(code: string, expiresInSeconds: number) {
  const builds: FlowInput[] = [];
  const sends: string[] = [];
  const resend: SignedResend = {
    method: 'vault.deposit',
    nonce: 'ab'.repeat(16),
    expiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds,
    send: (onProgress) => {
      sends.push('again');
      onProgress(2);
      return Promise.resolve({ txid: '7'.repeat(64), vaultTxid: '7'.repeat(64) });
    },
    close: () => sends.push('closed'),
  };
  const execute: ExecuteFlow = async (action, input, onProgress, context) => {
    if (input.resend) return executeFlow(action, input, onProgress, context);
    builds.push(input);
    onProgress(1);
    context.onSent?.();
    onProgress(2);
    const error = new Answer(code);
    attachResend(error, resend);
    throw error;
  };
  return { execute, builds, sends, resend };
}

async function depositFails() {
  const user = userEvent.setup();
  const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
  await waitFor(() => expect(within(drawer).getByText(/^Available: 0\.4/)).toBeInTheDocument());
  await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
  const submit = within(drawer).getByRole('button', { name: 'Deposit' });
  await waitFor(() => expect(submit).toBeEnabled());
  await user.click(submit);
  await within(await screen.findByRole('dialog')).findByRole('alert');
  return { user, drawer: screen.getByRole('dialog') };
}

describe('send again', () => {
  it('sends the same signed request again after the network was unreachable, and records it', async () => {
    const { execute, builds, sends } = failingOnce('chain_unavailable', 300);
    renderApp('/?action=deposit', { execute });
    const { user, drawer } = await depositFails();
    expect(within(drawer).getByText(new RegExp(RESEND_COPY.explain.slice(0, 40)))).toBeVisible();
    await user.click(within(drawer).getByRole('button', { name: RESEND_COPY.button }));
    // Sent again as it was: nothing built or signed anew.
    await waitFor(() => expect(sends).toEqual(['again']));
    expect(builds).toHaveLength(1);
    await screen.findByText('7'.repeat(8), { exact: false });
    const stored = parsePendingList(localStorage.getItem(pendingStorageKey('tb1qfa')));
    expect(stored.map((p) => p.transactionId)).toEqual(['7'.repeat(64)]);
  });

  it('offers to start over once the signed request has expired, and lets its socket go', async () => {
    const { execute, sends } = failingOnce('chain_unavailable', -1);
    renderApp('/?action=deposit', { execute });
    const { user, drawer } = await depositFails();
    expect(within(drawer).getByText(RESEND_COPY.expired)).toBeVisible();
    expect(within(drawer).queryByRole('button', { name: RESEND_COPY.button })).toBeNull();
    await waitFor(() => expect(sends).toEqual(['closed']));
    await user.click(within(drawer).getByRole('button', { name: RESEND_COPY.startOver }));
    // Back on the form, to sign a new request.
    expect(
      await within(screen.getByRole('dialog')).findByLabelText('Deposit amount'),
    ).toBeVisible();
  });

  it('offers nothing to send again after a refusal', async () => {
    const { execute } = failingOnce('bad_transaction', 300);
    renderApp('/?action=deposit', { execute });
    const { drawer } = await depositFails();
    expect(within(drawer).queryByRole('button', { name: RESEND_COPY.button })).toBeNull();
    expect(within(drawer).queryByText(RESEND_COPY.expired)).toBeNull();
  });
});
