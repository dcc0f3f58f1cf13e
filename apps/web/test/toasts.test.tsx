// SPEC §8, §9: the clipboard toast lasts 1.5 s; the generic error toast maps time-outs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { CLIPBOARD_TOAST_MS, type UserDto } from '@unit/protocol';
import { advance, eventually, startFakeClock, stopFakeClock } from './fake-clock';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';
import { useToasts } from '../src/ui/toasts';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const USER: UserDto = {
  address: FAKE_ACCOUNT.satsAddress,
  discord_id: null,
  twitter_id: null,
  telegram_id: null,
  referral_code: 'abc123def0',
  referred_by: null,
  referrals: 2,
  level: 'level_one',
  level_title: 'Nebula',
  postage_sats: 10_000,
};

const writeText = vi.fn(async (_text: string) => undefined);

beforeEach(() => {
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  stopFakeClock();
  Reflect.deleteProperty(navigator, 'clipboard');
});

const toast = (title: string) => screen.queryByText(title)?.closest('li') ?? null;

describe('clipboard toast', () => {
  it("says 'Copied to clipboard' for 1.5 s after copying the referral link", async () => {
    server.use(
      http.get('*/api/missions', () => HttpResponse.json([])),
      http.get('*/api/users', () => HttpResponse.json([USER])),
      http.get('*/api/users/:address/community', () =>
        HttpResponse.json({ roles: [], badges: [] }),
      ),
      http.get('*/api/oauth/providers', () =>
        HttpResponse.json({ discord: false, twitter: false }),
      ),
    );
    fakeWallet.connectAs();
    renderApp('/missions');
    const card = await screen.findByRole('region', { name: 'Your referrals' }, { timeout: 5_000 });
    const link = `${window.location.origin}/missions?ref=abc123def0`;
    // the whole link as text (the field cut its code off)
    expect(within(card).getByLabelText('Referral link')).toHaveTextContent(link);

    startFakeClock();
    fireEvent.click(within(card).getByRole('button', { name: 'Copy referral link' }));
    await eventually(() => expect(toast('Copied to clipboard')).not.toBeNull());
    expect(writeText).toHaveBeenCalledWith(link);
    // Announced politely: the live role sits inside the list item (axe: a list item keeps its role).
    expect(within(toast('Copied to clipboard')!).getByRole('status')).toHaveTextContent(
      'Copied to clipboard',
    );

    await advance(CLIPBOARD_TOAST_MS - 1);
    expect(toast('Copied to clipboard')).not.toBeNull();
    await advance(1);
    expect(toast('Copied to clipboard')).toBeNull();
  });
});

describe('error toast', () => {
  /** A page whose action fails with the given error and reports it as the app does. */
  function FailingAction({ error }: { error: unknown }) {
    const toasts = useToasts();
    return (
      <button type="button" onClick={() => toasts.error(error)}>
        Run
      </button>
    );
  }
  const renderFailing = (error: unknown) =>
    renderApp('/', { routes: [{ path: '/', element: <FailingAction error={error} /> }] });

  it.each([
    new Error('Guardian request timed out after 30000 ms'),
    new Error('Request timeout'),
    'user timeout',
  ])("reads 'An error occurred' with the time-out message for %s", async (error) => {
    renderFailing(error);
    fireEvent.click(await screen.findByRole('button', { name: 'Run' }, { timeout: 5_000 }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('An error occurred');
    expect(alert).toHaveTextContent('Request timed out. Please try again');
    expect(alert).not.toHaveTextContent(/30000|user timeout|Request timeout/);
  });

  it('shows any other message as it is, and goes after a while', async () => {
    renderFailing(new Error('Vault Open failed'));
    const run = await screen.findByRole('button', { name: 'Run' }, { timeout: 5_000 });
    startFakeClock();
    fireEvent.click(run);
    await eventually(() => expect(screen.getByRole('alert')).toBeInTheDocument());
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('An error occurred');
    expect(alert).toHaveTextContent('Vault Open failed');
    expect(alert).not.toHaveTextContent('Request timed out');
    await advance(5_000);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
