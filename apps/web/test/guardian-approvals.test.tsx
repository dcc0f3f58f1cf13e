// The tracker shows each guardian's approval as it arrives ("2 of 3 guardians
// approved"), a refusal names each guardian's reason, and without approvals (the server signing
// alone) nothing changes. The flow is driven through the whole app; the guardian's progress is
// what the guardian client reports (guardian-client.ts: vault.progress step 4 with approvals).
import { describe, expect, it, vi } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DomainError } from '@unit/protocol';
import { fakeWallet } from './fake-wallet';
import { approvalsOf, guardian, heldExecute } from './held-approvals';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario } from './server';
import type { ExecuteFlow } from '../src/flows/flow-types';
import type { GuardianDecision } from '@unit/protocol/wire';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const TXID = 'b'.repeat(64);

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

/** The approvals' one live region (sr-only) under a tracker line, and the count on screen. */
const announcerOf = (line: HTMLElement) => line.querySelector('[aria-live="polite"]')!;
const countOf = (line: HTMLElement) => line.querySelector('.approvals__count')!;

/** Each guardian's row as a screen reader reads it, and its state by its style. */
const rowsOf = (dialog: HTMLElement) =>
  within(within(dialog).getByRole('list', { name: 'Guardians' }))
    .getAllByRole('listitem')
    .map((row) => row.textContent);

/** Step 4 as the guardian client reports it, guardian i + 1 in `states[i]`. */
const atStep4 = (
  report: ReturnType<typeof heldExecute>['report'],
  ...states: GuardianDecision['state'][]
) => act(() => report(4, approvalsOf(...states.map((state, i) => guardian(i + 1, state)))));

describe('guardian approvals in the tracker', { timeout: 60_000 }, () => {
  it('counts approvals at create step 4: 0, 2 then 3 of 3, announced once per phase', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report } = heldExecute(TXID);
    renderApp('/', { execute });
    const user = await confirmCreate();
    // Signed: the drawer gives way to the creation screen; its Transaction Tracker reopens it.
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    const line = trackerLine(dialog, 'Network approvals');
    const live = announcerOf(line);
    const count = countOf(line);
    // The live region is there, empty, before any approval: its first phase is announced too.
    expect(live).toBeEmptyDOMElement();

    act(() => report(3));
    atStep4(report, 'pending', 'pending', 'pending');
    expect(line).toHaveAttribute('aria-current', 'step');
    expect(count).toHaveTextContent('0 of 3 guardians approved, 2 needed');
    expect(live).toHaveTextContent('Waiting for 2 of 3 guardians to approve.');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: waiting',
      'guardian-2: waiting',
      'guardian-3: waiting',
    ]);

    // One approval: the count moves, the announcement does not (no word per guardian).
    atStep4(report, 'approved', 'pending', 'pending');
    expect(count).toHaveTextContent('1 of 3 guardians approved, 2 needed');
    expect(live).toHaveTextContent('Waiting for 2 of 3 guardians to approve.');

    atStep4(report, 'approved', 'pending', 'approved');
    expect(within(line).getByText('2 of 3 guardians approved')).toBeVisible();
    expect(count).toHaveTextContent('2 of 3 guardians approved, enough to sign');
    expect(count).toHaveClass('approvals__count--done');
    expect(live).toHaveTextContent('Enough guardians approved to sign.');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: approved',
      'guardian-2: waiting',
      'guardian-3: approved',
    ]);

    atStep4(report, 'approved', 'approved', 'approved');
    expect(count).toHaveTextContent('3 of 3 guardians approved, enough to sign');
    expect(live).toHaveTextContent('Enough guardians approved to sign.');
    // One voice in the whole page: the creation screen behind the drawer counts them too, silently
    // while the drawer's tracker speaks.
    expect(document.querySelectorAll('.approvals__announce[aria-live="polite"]')).toHaveLength(1);
    expect(document.querySelectorAll('.approvals__announce')).toHaveLength(2);
    // One polite live region, the announcement's: the count and the rows are out of any.
    expect(dialog.querySelectorAll('.tracker [aria-live="polite"]')).toHaveLength(1);
    expect(count).toHaveAttribute('aria-live', 'off');
    expect(
      within(dialog).getByRole('list', { name: 'Guardians' }).closest('[aria-live]'),
    ).toBeNull();

    // Submitting: the approvals stay under their line, now done.
    act(() => report(5));
    expect(line).toHaveClass('tracker__step--done');
    expect(count).toHaveTextContent('3 of 3 guardians approved, enough to sign');
    // The approvals' marks are style, not text: the tracker's ✓ are its done lines only.
    const tracker = within(dialog).getByRole('list', { name: 'Progress' });
    expect(within(tracker).getAllByText('✓')).toHaveLength(4);

    // The tracker's Details is a disclosure a keyboard opens, and says so.
    const details = within(dialog).getByRole('button', { name: 'Details' });
    expect(details).toHaveAttribute('aria-expanded', 'false');
    details.focus();
    await user.keyboard('{Enter}');
    expect(details).toHaveAttribute('aria-expanded', 'true');
    expect(document.getElementById(details.getAttribute('aria-controls')!)).toHaveTextContent(
      'Step5 of 5',
    );
  });

  it('still shows who approved on the tracker once the vault is created', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report, settle } = heldExecute(TXID);
    renderApp('/', { execute });
    const user = await confirmCreate();
    act(() => report(3));
    atStep4(report, 'approved', 'pending', 'approved');
    // The creation screen, where the user waits once the drawer closed, counts them too.
    const screenCount = await screen.findByText('2 of 3 guardians approved', {}, SLOW);
    expect(screenCount.closest('.approvals__count')).toHaveTextContent(
      '2 of 3 guardians approved, enough to sign',
    );
    act(() => report(5));
    act(() => settle());
    // Sent: its Details list no longer says the guardian the network did not wait for is waiting.
    const creation = screenCount.closest('section')!;
    await user.click(within(creation).getByRole('button', { name: 'Details' }));
    expect(rowsOf(creation)).toEqual([
      'guardian-1: approved',
      'guardian-2: not needed',
      'guardian-3: approved',
    ]);
    // The guardian answered: the Transaction Tracker opens on the success step, its tracker with
    // step 4's approvals under it, every line done.
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    expect(
      await within(dialog).findByRole(
        'heading',
        { level: 3, name: 'Vault Successfully Created!' },
        SLOW,
      ),
    ).toBeVisible();
    const line = trackerLine(dialog, 'Network approvals');
    expect(line).toHaveClass('tracker__step--done');
    expect(countOf(line)).toHaveTextContent('2 of 3 guardians approved, enough to sign');
    // Signed and sent: guardian-2 was not needed, and is no longer said to be waiting.
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: approved',
      'guardian-2: not needed',
      'guardian-3: approved',
    ]);
    expect(within(dialog).queryByText('waiting')).toBeNull();
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
    expect(countOf(line)).toHaveTextContent('1 of 3 guardians approved, 2 were needed');
    expect(countOf(line)).toHaveClass('approvals__count--error');
    expect(announcerOf(line)).toHaveTextContent('Too few guardians approved to sign.');
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

  it('says no answer, not waiting, for a guardian still pending when the request failed early', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report, fail } = heldExecute(TXID);
    renderApp('/', { execute });
    await confirmCreate();
    act(() => report(3));
    // Two refusals end the request before guardian-3 decided every session; one of them timed out.
    const last = approvalsOf(
      guardian(1, 'refused', 'the vault is busy'),
      guardian(2, 'unreachable', 'timed out'),
      guardian(3, 'pending'),
    );
    const message =
      '2 of 3 guardians refused this request. guardian-1: the vault is busy; guardian-2: timed out';
    act(() => report(4, last));
    act(() => fail(new DomainError('guardians_refused', message)));
    // SPEC §4: on error the drawer reopens on its tracker. The refusal is said whole: its "timed
    // out" does not turn it into the generic time-out, which would hide every reason.
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    expect(await within(dialog).findByRole('alert', {}, SLOW)).toHaveTextContent(message);
    expect(
      await screen.findByText('The guardians refused this request: their reasons are on the page.'),
    ).toBeVisible();
    expect(screen.queryByText('Request timed out. Please try again')).toBeNull();
    const line = trackerLine(dialog, 'Network approvals');
    expect(countOf(line)).toHaveTextContent('0 of 3 guardians approved, 2 were needed');
    expect(announcerOf(line)).toHaveTextContent('Too few guardians approved to sign.');
    expect(rowsOf(dialog)).toEqual([
      'guardian-1: refused, the vault is busy',
      'guardian-2: unreachable, timed out',
      'guardian-3: no answer',
    ]);
    const rows = within(within(dialog).getByRole('list', { name: 'Guardians' }));
    expect(rows.getAllByRole('listitem')[2]).toHaveClass('approvals__guardian--no-answer');
  });

  it('names a guardian left out of the signing and why', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const { execute, report } = heldExecute(TXID);
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
    const { execute, report } = heldExecute(TXID);
    renderApp('/', { execute });
    const user = await confirmCreate();
    await user.click(await screen.findByRole('button', { name: 'Transaction Tracker' }, SLOW));
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    act(() => report(3));
    act(() => report(4));
    act(() => report(5));
    expect(within(dialog).queryByText(/guardians? approved/)).toBeNull();
    expect(within(dialog).queryByRole('list', { name: 'Guardians' })).toBeNull();
    expect(announcerOf(trackerLine(dialog, 'Network approvals'))).toBeEmptyDOMElement();
    expect(countOf(trackerLine(dialog, 'Network approvals'))).toBeEmptyDOMElement();
    expect(trackerLine(dialog, 'Submitting')).toHaveAttribute('aria-current', 'step');
  });
});
