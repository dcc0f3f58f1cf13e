// In the pending banner: deposit, withdraw, borrow and repay close their drawer once
// the wallet has signed, so the guardians' approvals arrive while the user reads the banner. The
// flow runs through the whole app; the guardian's progress is what the guardian client reports
// (guardian-client.ts: an action drawer's step 3 carries the network's approvals).
import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DomainError } from '@unit/protocol';
import type { Approvals } from '@unit/protocol/wire';
import { fakeWallet } from './fake-wallet';
import { approvalsOf, guardian, heldExecute as heldFlow } from './held-approvals';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import type { ExecuteFlow } from '../src/flows/flow-types';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const TXID = 'a'.repeat(64);

/** The held flow, each step run in act(): the banner re-renders as it reports. */
function heldExecute() {
  const held = heldFlow(TXID);
  return {
    execute: held.execute,
    report: (step: number, approvals?: Approvals) => act(() => held.report(step, approvals)),
    submit: () => act(() => held.settle()),
  };
}

/** Generous: the drawer's dialog library loads lazily, on a machine shared by many. */
const SLOW = { timeout: 10_000 };

/** Deposits 0.1 BTC from the drawer; returns once the wallet signed and the drawer closed. */
async function depositFromDrawer() {
  const user = userEvent.setup();
  const drawer = await screen.findByRole('dialog', {}, SLOW);
  await within(drawer).findByText(/^Available: 0\.4/, {}, SLOW);
  await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
  await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
  return user;
}

const bannerOf = (title: string) =>
  screen.getByText(title, { selector: '.banner__title strong' }).closest('.banner') as HTMLElement;

const rowsOf = (banner: HTMLElement) =>
  within(within(banner).getByRole('list', { name: 'Guardians' }))
    .getAllByRole('listitem')
    .map((row) => row.textContent);

describe('guardian approvals in the pending banner', { timeout: 60_000 }, () => {
  it('counts approvals that arrive after the drawer closed, lists them, and keeps them once submitted', async () => {
    fakeWallet.connectAs();
    const { execute, report, submit } = heldExecute();
    renderApp('/?action=deposit', { execute });
    const user = await depositFromDrawer();
    // Signed: the drawer closed, the banner took over.
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), SLOW);
    let banner = bannerOf('Deposit in progress');
    expect(banner).not.toHaveTextContent(/guardians? approved/);

    report(3);
    report(3, approvalsOf(guardian(1, 'pending'), guardian(2, 'pending'), guardian(3, 'pending')));
    const live = banner.querySelector('[aria-live="polite"]')!;
    const count = banner.querySelector('.approvals__count')!;
    expect(count).toHaveTextContent('0 of 3 guardians approved, 2 needed');
    expect(live).toHaveTextContent('Waiting for 2 of 3 guardians to approve.');
    report(3, approvalsOf(guardian(1, 'approved'), guardian(2, 'pending'), guardian(3, 'pending')));
    // One more approval moves the count, not the announcement.
    expect(count).toHaveTextContent('1 of 3 guardians approved, 2 needed');
    expect(live).toHaveTextContent('Waiting for 2 of 3 guardians to approve.');
    report(
      3,
      approvalsOf(guardian(1, 'approved'), guardian(2, 'pending'), guardian(3, 'approved')),
    );
    expect(within(banner).getByText('2 of 3 guardians approved')).toBeVisible();
    expect(count).toHaveTextContent('2 of 3 guardians approved, enough to sign');
    expect(live).toHaveTextContent('Enough guardians approved to sign.');
    // One polite live region in the banner, the announcement's; the count and the list are kept
    // out of the banner's own (role status), so a decision does not read the banner out again.
    expect(banner.querySelectorAll('[aria-live="polite"]')).toHaveLength(1);
    expect(count).toHaveAttribute('aria-live', 'off');

    // The list waits behind Details, closed.
    const details = within(banner).getByRole('button', { name: 'Details' });
    expect(details).toHaveAttribute('aria-expanded', 'false');
    expect(within(banner).queryByRole('list', { name: 'Guardians' })).toBeNull();
    await user.click(details);
    expect(details).toHaveAttribute('aria-expanded', 'true');
    const list = within(banner).getByRole('list', { name: 'Guardians' });
    expect(details).toHaveAttribute('aria-controls', list.id);
    expect(list.closest('[aria-live]')).toHaveAttribute('aria-live', 'off');
    expect(rowsOf(banner)).toEqual([
      'guardian-1: approved',
      'guardian-2: waiting',
      'guardian-3: approved',
    ]);

    // Submitted: the SPEC's banner, the approvals still under it. The request is over: the
    // guardian the network did not wait for gave no answer, and is no longer said to be waiting.
    submit();
    banner = await waitFor(() => bannerOf('BTC Deposit Submitted'), SLOW);
    expect(within(banner).getByText('Finalizing...')).toBeInTheDocument();
    expect(within(banner).getByRole('link', { name: /^View transaction/ })).toBeInTheDocument();
    expect(within(banner).getByText('2 of 3 guardians approved')).toBeVisible();
    expect(rowsOf(banner)).toEqual([
      'guardian-1: approved',
      'guardian-2: not needed',
      'guardian-3: approved',
    ]);
    await user.click(within(banner).getByRole('button', { name: 'Details' }));
    expect(within(banner).queryByRole('list', { name: 'Guardians' })).toBeNull();
  });

  it('is the banner it always was when the server signs alone (no approvals)', async () => {
    fakeWallet.connectAs();
    const { execute, report, submit } = heldExecute();
    renderApp('/?action=deposit', { execute });
    await depositFromDrawer();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), SLOW);
    report(3);
    report(4);
    submit();
    const banner = await waitFor(() => bannerOf('BTC Deposit Submitted'), SLOW);
    expect(banner).toHaveTextContent(
      'Your deposit of 0.1 BTC is waiting for a block: usually within a minute.',
    );
    expect(banner).not.toHaveTextContent(/guardians?/);
    expect(within(banner).queryByRole('button', { name: 'Details' })).toBeNull();
    expect(banner.querySelector('.banner__approvals, .banner__refusal, [aria-live]')).toBeNull();
    // The same parts as every pending banner (pending-banner.test.tsx).
    expect(banner.querySelectorAll('.banner__text')).toHaveLength(1);
  });

  it('names each guardian’s reason when the guardians refuse, whole, with the list', async () => {
    fakeWallet.connectAs();
    const message =
      '2 of 3 guardians refused this request. guardian-2: my price is 10% under the quote; ' +
      'guardian-3: unreachable (connect ECONNREFUSED 127.0.0.1:7403)';
    const approvals = approvalsOf(
      guardian(1, 'approved'),
      guardian(2, 'refused', 'my price is 10% under the quote'),
      guardian(3, 'unreachable', 'unreachable (connect ECONNREFUSED 127.0.0.1:7403)'),
    );
    const execute: ExecuteFlow = async (_action, _input, onProgress, context) => {
      onProgress(1);
      context.onSent?.();
      onProgress(2);
      onProgress(3);
      // Reported after the drawer closed, before the refusal.
      await new Promise((resolve) => setTimeout(resolve, 50));
      onProgress(3, approvals);
      throw new DomainError('guardians_refused', message);
    };
    renderApp('/?action=deposit', { execute });
    const user = await depositFromDrawer();
    // SPEC §4: on error the drawer reopens; closed, the error banner stays.
    const dialog = await screen.findByRole('dialog', {}, SLOW);
    await within(dialog).findByRole('alert', {}, SLOW);
    // While the drawer's tracker says it, the banner behind it keeps quiet: one voice, not two.
    const announcer = bannerOf('Transaction failed').querySelector('.approvals__announce')!;
    expect(announcer).toHaveAttribute('aria-live', 'off');
    expect(document.querySelectorAll('.approvals__announce[aria-live="polite"]')).toHaveLength(1);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), SLOW);
    const banner = bannerOf('Transaction failed');
    expect(announcer).toHaveAttribute('aria-live', 'polite');
    expect(banner).toHaveAttribute('role', 'alert');
    expect(banner.querySelector('.banner__refusal')).toHaveTextContent(message);
    const count = banner.querySelector('.approvals__count')!;
    expect(count).toHaveTextContent('1 of 3 guardians approved, 2 were needed');
    expect(count).toHaveClass('approvals__count--error');
    expect(banner.querySelector('[aria-live="polite"]')).toHaveTextContent(
      'Too few guardians approved to sign.',
    );
    await user.click(within(banner).getByRole('button', { name: 'Details' }));
    expect(rowsOf(banner)).toEqual([
      'guardian-1: approved',
      'guardian-2: refused, my price is 10% under the quote',
      'guardian-3: unreachable',
    ]);
  });

  it('says nothing more for a failure that is not a refusal', async () => {
    fakeWallet.connectAs();
    const execute: ExecuteFlow = async (_action, _input, onProgress, context) => {
      onProgress(1);
      context.onSent?.();
      onProgress(2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new DomainError('vault_busy', 'The vault is busy with another request');
    };
    renderApp('/?action=deposit', { execute });
    const user = await depositFromDrawer();
    await within(await screen.findByRole('dialog', {}, SLOW)).findByRole('alert', {}, SLOW);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), SLOW);
    const banner = bannerOf('Transaction failed');
    expect(banner.querySelector('.banner__refusal, .banner__approvals')).toBeNull();
  });
});
