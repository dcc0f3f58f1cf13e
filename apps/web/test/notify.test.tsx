import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { pendingStorageKey, type TelegramNotifyDto, type UserDto } from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { config, pendingDeposit, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';
import type { ExecuteFlow } from '../src/flows/flow-types';
import type { FlowResultIds } from '../src/flows/engine';
import { PendingBanner } from '../src/vault/PendingBanner';
import { EnableTelegram, TELEGRAM_ON } from '../src/auth/EnableTelegram';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

/** Every POST /api/notify body, and whether the server answers it. */
let posted: TelegramNotifyDto[] = [];
let notifyOk = true;
/** The session the server reports: the owner's, unless a test signs out. */
let signedIn = true;

beforeEach(() => {
  posted = [];
  notifyOk = true;
  signedIn = true;
  server.use(
    http.get('*/api/auth/session', () =>
      signedIn
        ? HttpResponse.json({ address: FAKE_ACCOUNT.satsAddress })
        : HttpResponse.json({ error: 'Not signed in', code: 'unauthorized' }, { status: 401 }),
    ),
    http.post('*/api/notify', async ({ request }) => {
      posted.push((await request.json()) as TelegramNotifyDto);
      return notifyOk
        ? HttpResponse.json({ queued: 1, enabled: true }, { status: 202 })
        : HttpResponse.json({ error: 'Telegram is down', code: 'internal' }, { status: 500 });
    }),
  );
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/**
 * An execute that reports the signatures, then waits: the test switches to fake timers before the
 * transaction ids arrive, so the 5 s that follow are the test's to advance.
 */
function heldExecute(ids: FlowResultIds) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let called: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (called = resolve));
  const execute: ExecuteFlow = async (_action, _input, onProgress) => {
    onProgress(1);
    onProgress(2);
    called();
    await gate;
    return ids;
  };
  return {
    execute,
    started,
    /** fake timers from here on, then the guardian answers */
    async answer() {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
      release();
      await settle();
    },
  };
}

/** Lets promises, fetches (real I/O ticks) and zero-delay timers run without moving the clock. */
async function settle() {
  for (let i = 0; i < 10; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(0);
  }
}

async function advance(ms: number) {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
}

async function runDeposit(ids: FlowResultIds) {
  fakeWallet.connectAs();
  const held = heldExecute(ids);
  const user = userEvent.setup();
  renderApp('/?action=deposit', { execute: held.execute });
  const drawer = await screen.findByRole('dialog', {}, { timeout: 5_000 });
  await waitFor(() => expect(within(drawer).getByText(/^Available: 0\.4/)).toBeInTheDocument());
  await user.type(within(drawer).getByLabelText('Deposit amount'), '0.1');
  await user.click(within(drawer).getByRole('button', { name: 'Deposit' }));
  await held.started;
  await held.answer();
}

async function runCreate(ids: FlowResultIds) {
  scenario.vault = null;
  fakeWallet.connectAs();
  const held = heldExecute(ids);
  const user = userEvent.setup();
  renderApp('/', { execute: held.execute });
  await user.click(await screen.findByRole('button', { name: 'Create Vault' }));
  await user.type(await screen.findByLabelText('Vault name'), 'Treasure');
  await user.click(screen.getByRole('button', { name: 'Continue' }));
  await user.type(await screen.findByLabelText('Deposit BTC'), '0.1');
  await user.type(screen.getByLabelText('Borrow UNIT'), '1000');
  await user.click(screen.getByRole('button', { name: 'Preview' }));
  await user.click(await screen.findByRole('button', { name: 'Confirm' }));
  await held.started;
  await held.answer();
}

describe('Telegram notify (SPEC §7)', () => {
  it('posts the deposit 5 s after its transaction ids arrive, with the exact payload', async () => {
    await runDeposit({ txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) });
    // the flow is not held up: it has already finished
    expect(screen.getByText('BTC Deposit Submitted', { selector: 'strong' })).toBeInTheDocument();
    await advance(4_999);
    expect(posted).toEqual([]);
    await advance(1);
    expect(posted).toEqual([
      {
        network: 'devnet',
        address: FAKE_ACCOUNT.satsAddress,
        tx_id: '2'.repeat(64),
        tx_action: 'deposit',
        btc_amount: 10_000_000,
        unit_amount: 0,
        vault_id: vault.vault_id,
      },
    ]);
  });

  it("posts nothing without the owner's session: the server announces it itself", async () => {
    signedIn = false;
    await runDeposit({ txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) });
    await advance(10_000);
    expect(posted).toEqual([]);
    expect(console.warn).not.toHaveBeenCalled();
  });

  it('does not retry an action notification that fails, and only logs it', async () => {
    notifyOk = false;
    await runDeposit({ txid: '2'.repeat(64), vaultTxid: '2'.repeat(64) });
    await advance(5_000);
    expect(posted).toHaveLength(1);
    await advance(60_000);
    expect(posted).toHaveLength(1);
    expect(console.warn).toHaveBeenCalledWith(
      `Telegram notification for ${'2'.repeat(64)} failed`,
      expect.any(Error),
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('posts the create notification with the vault id and both amounts', async () => {
    await runCreate({ txid: '1'.repeat(64), vaultTxid: '1'.repeat(64), vaultId: 'v1' });
    await advance(5_000);
    expect(posted).toEqual([
      {
        network: 'devnet',
        address: FAKE_ACCOUNT.satsAddress,
        tx_id: '1'.repeat(64),
        tx_action: 'open',
        btc_amount: 10_000_000,
        unit_amount: 100_000,
        vault_id: 'v1',
      },
    ]);
  });

  it('retries a failing create notification 5 times at 5 s', async () => {
    notifyOk = false;
    await runCreate({ txid: '1'.repeat(64), vaultTxid: '1'.repeat(64), vaultId: 'v1' });
    await advance(5_000);
    expect(posted).toHaveLength(1);
    for (let retry = 1; retry <= 5; retry++) {
      await advance(4_999);
      expect(posted).toHaveLength(retry);
      await advance(1);
      expect(posted).toHaveLength(retry + 1);
    }
    await advance(60_000);
    expect(posted).toHaveLength(6);
    expect(new Set(posted.map((p) => p.tx_id))).toEqual(new Set(['1'.repeat(64)]));
    expect(console.warn).toHaveBeenCalledTimes(1);
  });

  it('stops retrying the create notification once the server accepts it', async () => {
    notifyOk = false;
    await runCreate({ txid: '1'.repeat(64), vaultTxid: '1'.repeat(64), vaultId: 'v1' });
    await advance(5_000);
    await advance(5_000);
    expect(posted).toHaveLength(2);
    notifyOk = true;
    await advance(5_000);
    expect(posted).toHaveLength(3);
    await advance(60_000);
    expect(posted).toHaveLength(3);
    expect(console.warn).not.toHaveBeenCalled();
  });
});

describe('Enable Telegram Notification', () => {
  /** The sign-in and link routes of the server, and what they were asked. */
  const linking = () => {
    const calls: string[] = [];
    server.use(
      http.post('*/api/auth/challenge', () => {
        calls.push('challenge');
        return HttpResponse.json({ message: 'sign this', expires_at: 0 });
      }),
      http.post('*/api/auth/verify', async ({ request }) => {
        const body = (await request.json()) as { signature: string };
        calls.push(`verify ${body.signature}`);
        return HttpResponse.json({ address: FAKE_ACCOUNT.satsAddress });
      }),
      http.post('*/api/telegram/link', () => {
        calls.push('link');
        return HttpResponse.json({
          url: 'https://t.me/unit_bot?start=ONE-TIME-code_0123456789',
          expires_at: 0,
        });
      }),
    );
    return calls;
  };

  it('signs in, then offers a one-time bot link, on the creation pending screen', async () => {
    signedIn = false;
    const calls = linking();
    await runCreate({ txid: '1'.repeat(64), vaultTxid: '1'.repeat(64), vaultId: 'v1' });
    vi.useRealTimers();
    await userEvent.click(
      await screen.findByRole('button', { name: 'Enable Telegram Notification' }),
    );
    expect(
      await screen.findByRole('link', { name: 'Open @unit_bot in Telegram and press Start' }),
    ).toHaveAttribute('href', 'https://t.me/unit_bot?start=ONE-TIME-code_0123456789');
    // The fake wallet signs by echoing the message.
    expect(calls).toEqual(['challenge', 'verify sign this', 'link']);
  });

  /** GET /api/users?address= answers this user, with whatever chat `chat()` says is linked. */
  const registered = (chat: () => string | null) =>
    server.use(
      http.get('*/api/users', ({ request }) =>
        HttpResponse.json([
          {
            address: new URL(request.url).searchParams.get('address')!,
            discord_id: null,
            twitter_id: null,
            telegram_id: chat(),
            referral_code: 'abc123def0',
            referred_by: null,
            referrals: 0,
            level: null,
            level_title: null,
            postage_sats: null,
          } satisfies UserDto,
        ]),
      ),
    );

  it('says notifications are on for a linked chat, and Relink offers a new link', async () => {
    const calls = linking();
    registered(() => '424242');
    fakeWallet.connectAs();
    renderApp('/', { routes: [{ path: '/', element: <EnableTelegram /> }] });
    expect(await screen.findByText(TELEGRAM_ON)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Enable Telegram Notification' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Relink' }));
    expect(
      await screen.findByRole('link', { name: 'Open @unit_bot in Telegram and press Start' }),
    ).toHaveAttribute('href', 'https://t.me/unit_bot?start=ONE-TIME-code_0123456789');
    expect(calls).toEqual(['link']);
  });

  it('turns to on by itself once the bot has linked the chat', async () => {
    linking();
    let chat: string | null = null;
    registered(() => chat);
    fakeWallet.connectAs();
    renderApp('/', { routes: [{ path: '/', element: <EnableTelegram /> }] });
    await userEvent.click(
      await screen.findByRole('button', { name: 'Enable Telegram Notification' }),
    );
    await screen.findByRole('link', { name: /^Open @unit_bot in Telegram/ });
    // The user presses Start in Telegram: the bot binds the chat on the server.
    chat = '424242';
    expect(await screen.findByText(TELEGRAM_ON, {}, { timeout: 5_000 })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /^Open @unit_bot in Telegram/ })).toBeNull();
  });

  it('says Telegram is not configured when the server runs no bot', async () => {
    server.use(http.get('*/api/config', () => HttpResponse.json({ ...config, telegramBot: null })));
    fakeWallet.connectAs();
    renderApp('/', { routes: [{ path: '/', element: <EnableTelegram /> }] });
    expect(
      await screen.findByText('Telegram notifications are not configured on this server.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Enable Telegram Notification' })).toBeNull();
  });

  it('offers the same link on the pending-transaction banner', async () => {
    const pending = pendingDeposit({
      amount: '10000000',
      btcInVault: '110000000',
      unitInVault: '5000000',
    });
    localStorage.setItem(pendingStorageKey(FAKE_ACCOUNT.satsAddress), JSON.stringify([pending]));
    fakeWallet.connectAs();
    renderApp('/', { routes: [{ path: '/', element: <PendingBanner /> }] });
    const banner = (
      await screen.findByText(
        'Your deposit of 0.1 BTC is waiting for a block: usually within a minute.',
      )
    ).closest('[role="status"]') as HTMLElement;
    expect(within(banner).getByRole('link', { name: /View transaction/ })).toBeInTheDocument();
    expect(
      within(banner).getByRole('button', { name: 'Enable Telegram Notification' }),
    ).toBeInTheDocument();
  });
});
