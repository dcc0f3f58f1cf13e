// Issue 20 item 6: the tracker shows each guardian's approval as it arrives ("2 of 3 guardians
// approved"), a refusal names each guardian's reason, and without approvals (the server signing
// alone) nothing changes. The flow is driven through the whole app; the guardian's progress is
// what the guardian client reports (guardian-client.ts: vault.progress step 4 with approvals).
import { describe, expect, it, vi } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DomainError } from '@unit/protocol';
import type { Approvals, GuardianDecision } from '@unit/protocol/wire';
import { fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';
import type { ExecuteFlow, OnProgress } from '../src/flows/flow-types';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const guardian = (id: number, state: GuardianDecision['state'], reason?: string) => ({
  id,
  name: `guardian-${id}`,
  state,
  ...(reason ? { reason } : {}),
});

const approvalsOf = (...guardians: GuardianDecision[]): Approvals => ({
  approved: guardians.filter((g) => g.state === 'approved').length,
  needed: 2,
  total: 3,
  guardians,
});

/** An execute that stops after the request is sent: the test reports the guardian's progress. */
function heldExecute() {
  const held: { report: OnProgress | null } = { report: null };
  const execute: ExecuteFlow = (_action, _input, onProgress, context) => {
    onProgress(1);
    context.onSent?.();
    onProgress(2);
    held.report = onProgress;
    return new Promise(() => undefined);
  };
  return {
    execute,
    report: (step: number, approvals?: Approvals) => held.report!(step, approvals),
  };
}

/** Generous: the drawer's dialog library loads lazily, on a machine shared by many. */
const SLOW = { timeout: 10_000 };

async function confirmCreate() {
  const user = userEvent.setup();
  await user.click(await screen.findByRole('button', { name: 'Create Vault' }, SLOW));
  await user.type(await screen.findByLabelText('Vault name', {}, SLOW), 'Treasure');
  await user.click(screen.getByRole('button', { name: 'Continue' }));
  await user.type(await screen.findByLabelText('Deposit BTC', {}, SLOW), '0.5');
  await user.type(screen.getByLabelText('Borrow UNIT'), '1000');
  await user.click(screen.getByRole('button', { name: 'Preview' }));
  await user.click(await screen.findByRole('button', { name: 'Confirm' }, SLOW));
  return user;
}

/** The tracker line of a step, by its label. */
const trackerLine = (dialog: HTMLElement, label: string) =>
  within(within(dialog).getByRole('list', { name: 'Progress' }))
    .getByText(label)
    .closest('li')!;

/** Each guardian's row as a screen reader reads it, and its state by its style. */
const rowsOf = (dialog: HTMLElement) =>
  within(within(dialog).getByRole('list', { name: 'Guardians' }))
    .getAllByRole('listitem')
    .map((row) => row.textContent);

describe('guardian approvals in the tracker (issue 20)', { timeout: 60_000 }, () => {
  it('counts approvals live at create step 4: 0, 2 then 3 of 3, done once 2 approved', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report } = heldExecute();
    renderApp('/', { execute });
    const user = await confirmCreate();
    // Signed: the drawer gives way to the creation screen; its Transaction Tracker reopens it.
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    const line = trackerLine(dialog, 'Network approvals');
    const live = line.querySelector('[aria-live="polite"]')!;
    // The live region is there, empty, before any approval: its first count is announced too.
    expect(live).toBeEmptyDOMElement();

    act(() => report(3));
    act(() =>
      report(
        4,
        approvalsOf(guardian(1, 'pending'), guardian(2, 'pending'), guardian(3, 'pending')),
      ),
    );
    expect(line).toHaveAttribute('aria-current', 'step');
    expect(live).toHaveTextContent('0 of 3 guardians approved, 2 needed');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: waiting',
      'guardian-2: waiting',
      'guardian-3: waiting',
    ]);

    act(() =>
      report(
        4,
        approvalsOf(guardian(1, 'approved'), guardian(2, 'pending'), guardian(3, 'approved')),
      ),
    );
    expect(within(line).getByText('2 of 3 guardians approved')).toBeVisible();
    expect(live).toHaveTextContent('2 of 3 guardians approved, enough to sign');
    expect(live).toHaveClass('approvals__count--done');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: approved',
      'guardian-2: waiting',
      'guardian-3: approved',
    ]);

    act(() =>
      report(
        4,
        approvalsOf(guardian(1, 'approved'), guardian(2, 'approved'), guardian(3, 'approved')),
      ),
    );
    expect(live).toHaveTextContent('3 of 3 guardians approved, enough to sign');
    // One polite live region, the count's: the rows are not announced one by one.
    expect(dialog.querySelectorAll('.tracker [aria-live]')).toHaveLength(1);
    expect(
      within(dialog).getByRole('list', { name: 'Guardians' }).closest('[aria-live]'),
    ).toBeNull();

    // Submitting: the approvals stay under their line, now done.
    act(() => report(5));
    expect(line).toHaveClass('tracker__step--done');
    expect(live).toHaveTextContent('3 of 3 guardians approved, enough to sign');
    // The approvals' marks are style, not text: the tracker's ✓ are its done lines only.
    const tracker = within(dialog).getByRole('list', { name: 'Progress' });
    expect(within(tracker).getAllByText('✓')).toHaveLength(4);
  });

  it('shows a guardians_refused failure with its message and the last list, reasons included', async () => {
    fakeWallet.connectAs();
    const message =
      '2 of 3 guardians refused this request. guardian-2: my price is 10% under the quote; guardian-3: unreachable';
    const execute: ExecuteFlow = async (_action, _input, onProgress, context) => {
      onProgress(1);
      context.onSent?.();
      onProgress(2);
      // An action drawer's 3 validation is where the guardian's step 4 lands (guardian-client.ts).
      onProgress(3);
      onProgress(
        3,
        approvalsOf(
          guardian(1, 'approved'),
          guardian(2, 'refused', 'my price is 10% under the quote'),
          guardian(3, 'unreachable', 'unreachable'),
        ),
      );
      throw new DomainError('guardians_refused', message);
    };
    renderApp('/?action=deposit', { execute });
    const user = userEvent.setup();
    const drawer = await screen.findByRole('dialog', {}, SLOW);
    await within(drawer).findByText(/^Available: 0\.4/, {}, SLOW);
    await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
    await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
    // SPEC §4: on error the drawer reopens on its tracker.
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    expect(await within(dialog).findByRole('alert', {}, SLOW)).toHaveTextContent(message);
    const line = trackerLine(dialog, 'Validation');
    expect(line).toHaveClass('tracker__step--error');
    const live = line.querySelector('[aria-live="polite"]')!;
    expect(live).toHaveTextContent('1 of 3 guardians approved, 2 needed');
    expect(live).toHaveClass('approvals__count--error');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: approved',
      'guardian-2: refused, my price is 10% under the quote',
      // Its reason only repeats its state: said once.
      'guardian-3: unreachable',
    ]);
    const guardians = within(within(dialog).getByRole('list', { name: 'Guardians' }));
    expect(guardians.getAllByRole('listitem').map((row) => row.className.split('--')[1])).toEqual([
      'approved',
      'refused',
      'unreachable',
    ]);
    // Back forgets them with the failure in the drawer; the error banner behind it, which is
    // about the failed request, keeps them (banner-approvals.test.tsx).
    await user.click(within(dialog).getByRole('button', { name: 'Back' }));
    expect(within(dialog).queryByText(/guardians approved/)).toBeNull();
  });

  it('names a guardian left out of the signing and why', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report } = heldExecute();
    renderApp('/', { execute });
    const user = await confirmCreate();
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    act(() =>
      report(
        4,
        approvalsOf(
          guardian(1, 'approved'),
          guardian(2, 'excluded', 'sent a signature share that does not verify'),
          guardian(3, 'refused', 'the vault is busy'),
        ),
      ),
    );
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: approved',
      'guardian-2: left out, sent a signature share that does not verify',
      'guardian-3: refused, the vault is busy',
    ]);
    expect(within(dialog).getByText('1 of 3 guardians approved')).toBeVisible();
  });

  it('changes nothing when the server signs alone (no approvals)', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report } = heldExecute();
    renderApp('/', { execute });
    const user = await confirmCreate();
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    act(() => report(3));
    act(() => report(4));
    act(() => report(5));
    expect(within(dialog).queryByText(/guardians? approved/)).toBeNull();
    expect(within(dialog).queryByRole('list', { name: 'Guardians' })).toBeNull();
    expect(
      trackerLine(dialog, 'Network approvals').querySelector('[aria-live]'),
    ).toBeEmptyDOMElement();
    expect(trackerLine(dialog, 'Submitting')).toHaveAttribute('aria-current', 'step');
  });
});
