// SPEC §4 Timeout and retry, §8 error catalogue: a flow the guardian never answers is flagged timed
// out after the configured time-out; the no-accounts error of borrow and repay offers Try again
// after a 30 s countdown.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  ERROR_MESSAGES,
  RETRY_COUNTDOWN_SECONDS,
  parsePendingList,
  pendingStorageKey,
} from '@unit/protocol';
import { advance, eventually, settle, startFakeClock, stopFakeClock } from './fake-clock';
import { fakeWallet } from './fake-wallet';
import { config } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';
import type { ExecuteFlow, FlowInput } from '../src/flows/flow-types';
import { WalletError } from '../src/wallet/errors';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

/** Not the fixture's 65 s: the flow must read its time-out from /api/config. */
const TIMEOUT_MS = 20_000;

beforeEach(() => {
  server.use(
    http.get('*/api/config', () =>
      HttpResponse.json({
        ...config,
        constants: { ...config.constants, flowTimeoutMs: TIMEOUT_MS },
      }),
    ),
  );
  fakeWallet.connectAs();
});
afterEach(() => {
  stopFakeClock();
});

type Attempt =
  'hang' | 'no-accounts' | 'wallet-no-accounts' | 'declined' | 'late' | 'succeed' | 'slow-signer';

/** Ends the 'slow-signer' attempt's wallet prompt: the request then goes to the guardian. */
let finishSigning: () => void = () => undefined;

/** Answers the 'late' attempt: the guardian's reply that comes after the time-out. */
let answerLate: () => void = () => undefined;

/** The guardian side of each attempt, in order; records what each attempt was asked to send. */
function scriptedExecute(attempts: Attempt[]) {
  const inputs: FlowInput[] = [];
  const execute: ExecuteFlow = async (_action, input, onProgress, context) => {
    const attempt = attempts[inputs.length] ?? 'hang';
    inputs.push(input);
    onProgress(1);
    if (attempt === 'slow-signer') {
      // Minutes in the wallet prompt, then sent; the guardian then never answers.
      await new Promise<void>((resolve) => (finishSigning = resolve));
      context.onSent?.();
      return new Promise<never>(() => undefined);
    }
    // SPEC §4: the no-accounts error comes before anything is signed (guardian-client checks the
    // account first; a wallet that shares none refuses to sign).
    if (attempt === 'no-accounts') throw new WalletError('no_accounts', 'No accounts');
    if (attempt === 'wallet-no-accounts')
      throw new WalletError('no_accounts', 'Xverse has not shared an account with this app yet.');
    if (attempt === 'declined')
      throw new WalletError('rejected', 'Request cancelled in the wallet.');
    onProgress(2);
    if (attempt === 'succeed') return { txid: '5'.repeat(64), vaultTxid: '5'.repeat(64) };
    if (attempt === 'late')
      return new Promise((resolve) => {
        answerLate = () => resolve({ txid: '6'.repeat(64), vaultTxid: '6'.repeat(64) });
      });
    return new Promise<never>(() => undefined);
  };
  return { execute, inputs };
}

const FORMS = {
  borrow: { label: 'Borrow amount', amount: '100', ready: 'Up to 9,375.00 UNIT' },
  repay: { label: 'Repay amount', amount: '100', ready: 'Up to 10,000.00 UNIT' },
  deposit: { label: 'Deposit amount', amount: '0.1', ready: /^Available: 0\.4/ },
} as const;
type Action = keyof typeof FORMS;
const BUTTON: Record<Action, string> = { borrow: 'Borrow', repay: 'Repay', deposit: 'Deposit' };

/**
 * Fills the open drawer's form with real timers, then switches to fake timers and submits, so the
 * flow's time-out and every later timer are the test's to advance.
 */
async function fillAndSubmit(action: Action) {
  stopFakeClock();
  const user = userEvent.setup();
  // the first drawer of a file loads its lazy chunk: more than findBy's default second under load
  const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
  const form = FORMS[action];
  await waitFor(() => expect(within(drawer).getByText(form.ready)).toBeInTheDocument());
  await user.type(within(drawer).getByLabelText(form.label), form.amount);
  const submit = within(drawer).getByRole('button', { name: BUTTON[action] });
  await waitFor(() => expect(submit).toBeEnabled());
  startFakeClock();
  fireEvent.click(submit);
  await settle();
}

// Under fake timers findBy* cannot time out: eventually() waits on real ticks instead.
const trackerAlert = async () => {
  await eventually(() => within(screen.getByRole('dialog')).getByRole('alert'));
  return within(screen.getByRole('dialog')).getByRole('alert');
};

describe('flow time-out (SPEC §4)', () => {
  it('still records a borrow the guardian broadcasts after the time-out, so it is never lost', async () => {
    const { execute } = scriptedExecute(['late']);
    renderApp('/?action=borrow', { execute });
    await fillAndSubmit('borrow');
    await advance(TIMEOUT_MS);
    expect(await trackerAlert()).toHaveTextContent('Request timed out. Please try again');
    // SPEC §8: the generic toast says it too.
    expect(screen.getByText('An error occurred').closest('li')).toHaveTextContent(
      'Request timed out. Please try again',
    );

    answerLate();
    await settle();
    // The late transaction is pending like any other: its banner, and every action waits for it.
    await eventually(() => expect(screen.getByText('Vault Borrow Submitted!')).toBeInTheDocument());
    expect(screen.getByText(/Finalizing\.\.\./)).toBeInTheDocument();
    const stored = parsePendingList(localStorage.getItem(pendingStorageKey('tb1qfa')));
    expect(stored.map((p) => p.transactionId)).toEqual(['6'.repeat(64)]);
  });

  it('counts the time-out from when the request is sent, not from the wallet prompt', async () => {
    const { execute } = scriptedExecute(['slow-signer']);
    renderApp('/?action=borrow', { execute });
    await fillAndSubmit('borrow');
    // The user reads the wallet prompt for three time-outs' worth: no time-out meanwhile.
    await advance(TIMEOUT_MS * 3);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Transaction failed')).not.toBeInTheDocument();

    finishSigning();
    await settle();
    await advance(TIMEOUT_MS - 1);
    expect(screen.queryByText('Transaction failed')).not.toBeInTheDocument();
    await advance(1);
    expect(await trackerAlert()).toHaveTextContent('Request timed out. Please try again');
  });

  it('returns a borrow declined in the wallet to its form, amount kept, without an error', async () => {
    const { execute } = scriptedExecute(['declined']);
    renderApp('/?action=borrow', { execute });
    await fillAndSubmit('borrow');
    const dialog = screen.getByRole('dialog');
    await eventually(() =>
      expect(within(dialog).getByLabelText('Borrow amount')).toHaveValue('100'),
    );
    expect(within(dialog).getByRole('button', { name: 'Borrow' })).toBeEnabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText('Transaction failed')).not.toBeInTheDocument();
  });

  it('flags a borrow the guardian never answers as timed out after the configured time-out', async () => {
    const { execute } = scriptedExecute(['hang']);
    renderApp('/?action=borrow', { execute });
    await fillAndSubmit('borrow');

    // Signatures collected: the drawer gave way to the banner.
    await eventually(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByText('Borrow in progress')).toBeInTheDocument();

    await advance(TIMEOUT_MS - 1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.queryByText(ERROR_MESSAGES.timedOut)).not.toBeInTheDocument();

    await advance(1);
    // The drawer reopens on the failed step with the SPEC §8 time-out message.
    expect(await trackerAlert()).toHaveTextContent('Request timed out. Please try again');
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByText('Received by node').closest('li')).toHaveClass(
      'tracker__step--error',
    );
    // behind the drawer, the banner turned into an error
    expect(screen.getByText('Transaction failed').closest('.banner')).toHaveClass('banner--error');
    // A time-out alone is not the no-accounts error: Back, and no Try again.
    expect(within(dialog).getByRole('button', { name: 'Back' })).toBeEnabled();
    expect(within(dialog).queryByRole('button', { name: /Try again/ })).not.toBeInTheDocument();
  });

  it.each(['borrow', 'repay'] as const)(
    'after a time-out, offers Try again on the no-accounts error of %s, enabled after 30 s',
    async (action) => {
      const { execute, inputs } = scriptedExecute(['hang', 'no-accounts', 'succeed']);
      renderApp(`/?action=${action}`, { execute });
      await fillAndSubmit(action);
      await advance(TIMEOUT_MS);
      expect(await trackerAlert()).toHaveTextContent(ERROR_MESSAGES.timedOut);

      // Back to the form, which forgets the amount, and again: now the wallet shares no account.
      fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Back' }));
      await eventually(() =>
        expect(within(screen.getByRole('dialog')).getByLabelText(FORMS[action].label)).toHaveValue(
          '',
        ),
      );
      await fillAndSubmit(action);
      expect(await trackerAlert()).toHaveTextContent('No accounts');
      const dialog = screen.getByRole('dialog');
      expect(within(dialog).getByRole('button', { name: 'Try again (30s)' })).toBeDisabled();

      for (let second = 1; second < RETRY_COUNTDOWN_SECONDS; second++) await advance(1_000);
      expect(within(dialog).getByRole('button', { name: 'Try again (1s)' })).toBeDisabled();
      await advance(1_000);
      const retry = within(dialog).getByRole('button', { name: 'Try again' });
      expect(retry).toBeEnabled();

      fireEvent.click(retry);
      await eventually(() => expect(inputs).toHaveLength(3));
      // The retry sends what the failed attempt would have sent, and this time it goes through.
      expect(inputs[2]).toEqual(inputs[1]);
      expect(inputs[2]!.cents).toBe(10_000n);
      const titles = { borrow: 'Vault Borrow Submitted!', repay: 'UNIT Repayment Submitted' };
      await eventually(() =>
        expect(screen.getByText(titles[action], { selector: 'strong' })).toBeInTheDocument(),
      );
    },
  );

  it('offers Try again when the wallet itself reports it shares no account', async () => {
    const { execute } = scriptedExecute(['wallet-no-accounts']);
    renderApp('/?action=borrow', { execute });
    await fillAndSubmit('borrow');
    expect(await trackerAlert()).toHaveTextContent(
      'Xverse has not shared an account with this app yet.',
    );
    expect(
      within(screen.getByRole('dialog')).getByRole('button', { name: 'Try again (30s)' }),
    ).toBeDisabled();
  });

  it('does not offer Try again on the no-accounts error of a deposit', async () => {
    const { execute } = scriptedExecute(['no-accounts']);
    renderApp('/?action=deposit', { execute });
    await fillAndSubmit('deposit');
    expect(await trackerAlert()).toHaveTextContent('No accounts');
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).queryByRole('button', { name: /Try again/ })).not.toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Back' })).toBeInTheDocument();
  });
});
