import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import {
  BUTTON_REASONS,
  MISSION_REASONS,
  pendingStorageKey,
  type MissionDto,
  type UserDto,
} from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { config, pendingDeposit } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const ADDRESS = FAKE_ACCOUNT.satsAddress;

const mission = (id: string, title: string, action: MissionDto['action'], done = false) => ({
  id,
  title,
  action,
  mission_tasks: 1,
  completed_tasks: done ? 1 : 0,
});

const MISSIONS: MissionDto[] = [
  mission('1', 'Open your vault', 'create-vault', true),
  mission('2', 'Deposit BTC into your vault', 'deposit'),
  mission('3', 'Borrow UNIT', 'borrow'),
  mission('4', 'Repay UNIT', 'repay'),
  mission('5', 'Withdraw BTC', 'withdraw'),
  mission('6', 'Repossess a liquidated vault', 'repossess'),
];

const USER: UserDto = {
  address: ADDRESS,
  discord_id: null,
  twitter_id: null,
  telegram_id: null,
  referral_code: 'abc123def0',
  referred_by: null,
  referrals: 6,
  level: 'level_two',
  level_title: 'Red Giant',
  postage_sats: 15_000,
};

/** What the missions routes of the server hold and what they were asked. */
const api = {
  missions: MISSIONS,
  user: USER as UserDto | null,
  listedFor: [] as string[],
  registered: [] as unknown[],
  verified: [] as { id: string; body: unknown }[],
  /** the address the session cookie would carry; null: not signed in */
  session: ADDRESS as string | null,
  signatures: [] as { address: string; message: string; signature: string }[],
  /** resolves a POST verify; replaced per test to hold it open */
  verify: (id: string): Promise<MissionDto> | MissionDto =>
    ({ ...api.missions.find((m) => m.id === id)!, completed_tasks: 1 }) as MissionDto,
};

const award = (id: string, title: string, earned: boolean) => ({
  id,
  title,
  how: `How to earn ${title}.`,
  earned,
});
const COMMUNITY = {
  roles: [award('genesis', 'Genesis', true), award('prime', 'Prime', false)],
  badges: [award('boost', 'Boost', false), award('referral', 'Referral', true)],
};

const missionRoutes = [
  http.get('*/api/users/:address/community', () => HttpResponse.json(COMMUNITY)),
  http.get('*/api/oauth/providers', () => HttpResponse.json({ discord: true, twitter: false })),
  http.get('*/api/auth/session', () =>
    api.session
      ? HttpResponse.json({ address: api.session })
      : HttpResponse.json({ error: 'Not signed in', code: 'unauthorized' }, { status: 401 }),
  ),
  http.post('*/api/auth/challenge', async ({ request }) => {
    const { address } = (await request.json()) as { address: string };
    return HttpResponse.json({ message: `sign in as ${address}`, expires_at: 0 });
  }),
  http.post('*/api/auth/verify', async ({ request }) => {
    const body = (await request.json()) as { address: string; message: string; signature: string };
    api.signatures.push(body);
    api.session = body.address;
    return HttpResponse.json({ address: body.address });
  }),
  http.get('*/api/missions', ({ request }) => {
    api.listedFor.push(new URL(request.url).searchParams.get('address') ?? '');
    return HttpResponse.json(api.missions);
  }),
  http.post('*/api/missions/:id/verify', async ({ params, request }) => {
    const id = String(params.id);
    api.verified.push({ id, body: await request.json() });
    return HttpResponse.json(await api.verify(id));
  }),
  http.get('*/api/users', () => HttpResponse.json(api.user ? [api.user] : [])),
  http.post('*/api/users', async ({ request }) => {
    const body = (await request.json()) as { address: string; referral_code: string | null };
    api.registered.push(body);
    api.user = { ...USER, address: body.address, referrals: 0, level: null, level_title: null };
    return HttpResponse.json(api.user, { status: 201 });
  }),
];

beforeEach(() => {
  api.missions = MISSIONS;
  api.user = USER;
  api.listedFor = [];
  api.registered = [];
  api.verified = [];
  api.session = ADDRESS;
  api.signatures = [];
  api.verify = (id) => ({ ...api.missions.find((m) => m.id === id)!, completed_tasks: 1 });
  server.use(...missionRoutes);
});

const item = (title: string) => screen.getByRole('heading', { name: title }).closest('li')!;

describe('missions page', () => {
  it('lists the missions of the connected address from the server with their completion', async () => {
    fakeWallet.connectAs();
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get('*/api/missions', async ({ request }) => {
        api.listedFor.push(new URL(request.url).searchParams.get('address') ?? '');
        await held;
        return HttpResponse.json(api.missions);
      }),
    );
    renderApp('/missions');
    // the page's module loads first (its hydrate fallback shows meanwhile), on a busy machine slowly
    expect(
      await screen.findByRole('status', { name: 'Loading missions' }, { timeout: 8_000 }),
    ).toBeInTheDocument();
    answer();
    expect(await screen.findByRole('heading', { name: 'Borrow UNIT' })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Loading missions' })).not.toBeInTheDocument();
    expect(api.listedFor).toContain(ADDRESS);
    expect(
      screen.getAllByRole('listitem').filter((li) => li.closest('.mission-list')),
    ).toHaveLength(6);
    expect(within(item('Open your vault')).getByText('Completed')).toBeInTheDocument();
    expect(within(item('Open your vault')).queryByRole('button')).not.toBeInTheDocument();
    expect(within(item('Borrow UNIT')).getByRole('button', { name: 'Start' })).toBeEnabled();
    expect(screen.getByText('1 of 6 completed')).toBeInTheDocument();
    // a registered user needs no mission-action button
    expect(screen.queryByRole('button', { name: 'Register' })).not.toBeInTheDocument();
  });

  it('shows the referral levels with their titles and the user level', async () => {
    fakeWallet.connectAs();
    renderApp('/missions');
    const levels = await screen.findByRole('region', { name: 'Referral levels' });
    const rows = within(levels).getAllByRole('listitem');
    expect(
      rows.map((r) => within(r).getByText(/Nebula|Red Giant|Super Giant/).textContent),
    ).toEqual(['Nebula', 'Red Giant', 'Super Giant']);
    await waitFor(() => expect(rows[1]).toHaveAttribute('aria-current', 'step'));
    expect(within(rows[1]!).getByText('Your level')).toBeInTheDocument();
    expect(within(levels).getByText('14 more referrals to reach Super Giant.')).toBeInTheDocument();
    // the whole link, its code set apart (the field cut the code off)
    expect(screen.getByLabelText('Referral link')).toHaveTextContent(
      `${window.location.origin}/missions?ref=abc123def0`,
    );
    expect(
      screen.getByText('abc123def0', { selector: '.referral-link__code strong' }),
    ).toBeVisible();
  });

  it('shows the roles and badges the server computed, earned or not, with how to earn them', async () => {
    fakeWallet.connectAs();
    renderApp('/missions');
    const roles = await screen.findByRole('region', { name: 'Discord roles' });
    expect(within(roles).getByText('1 of 2 earned')).toBeInTheDocument();
    const genesis = within(roles).getByText('Genesis').closest('li')!;
    expect(within(genesis).getByText('Earned')).toBeInTheDocument();
    const prime = within(roles).getByText('Prime').closest('li')!;
    expect(within(prime).getByText('Not yet')).toBeInTheDocument();
    expect(within(prime).getByText('How to earn Prime.')).toBeInTheDocument();
    const badges = screen.getByRole('region', { name: 'Badges' });
    expect(within(within(badges).getByText('Referral').closest('li')!).getByText('Earned'));
  });

  it('says Telegram is not configured like the other accounts when the server has no bot', async () => {
    fakeWallet.connectAs();
    server.use(http.get('*/api/config', () => HttpResponse.json({ ...config, telegramBot: null })));
    renderApp('/missions');
    const accounts = await screen.findByRole('region', { name: 'Linked accounts' });
    const telegram = (await within(accounts).findByText('Telegram')).closest('div')!;
    expect(within(telegram).getByText('Not configured on this server')).toBeInTheDocument();
    expect(within(telegram).queryByRole('button')).toBeNull();
  });

  it('links accounts: Discord through its consent screen, Twitter not configured here', async () => {
    fakeWallet.connectAs();
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    server.use(
      http.post('*/api/oauth/discord/start', () =>
        HttpResponse.json({ url: 'https://discord.example/consent?state=s' }),
      ),
    );
    try {
      renderApp('/missions?link_error=twitter');
      const accounts = await screen.findByRole('region', { name: 'Linked accounts' });
      expect(
        await within(accounts).findByText('Not configured on this server'),
      ).toBeInTheDocument();
      expect(within(accounts).getByRole('alert')).toHaveTextContent(
        'Twitter (X) could not be linked. Try again.',
      );
      await userEvent.click(within(accounts).getByRole('button', { name: 'Link Discord' }));
      await waitFor(() =>
        expect(assign).toHaveBeenCalledWith('https://discord.example/consent?state=s'),
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('offers Connect Wallet with no wallet, and Login to a registered address with no session', async () => {
    api.session = null;
    const { unmount } = renderApp('/missions');
    const area = await screen.findByRole('region', { name: 'Missions' });
    expect(within(area).getByRole('button', { name: 'Connect Wallet' })).toBeInTheDocument();
    expect(within(area).getByText('Connect your wallet to see your missions.')).toBeInTheDocument();
    await userEvent.click(within(area).getByRole('button', { name: 'Connect Wallet' }));
    expect(screen.getByRole('dialog', { name: 'Wallet picker' })).toBeInTheDocument();
    unmount();

    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/missions');
    const again = await screen.findByRole('region', { name: 'Missions' });
    const login = await within(again).findByRole('button', { name: 'Login' });
    expect(within(again).queryByRole('button', { name: 'Connect Wallet' })).not.toBeInTheDocument();
    // Without a session the missions wait: verifying is a write about the user.
    const start = within(await findItem('Borrow UNIT')).getByRole('button', { name: 'Start' });
    expect(start).toHaveAccessibleDescription(`Borrow UNIT ${MISSION_REASONS['no-user']}`);
    // said once above the list, not on each of the six missions
    expect(within(again).getAllByText(MISSION_REASONS['no-user'])).toHaveLength(1);
    // Signed out, no progress beside it: no count, no marks, no tasks done (the address has
    // opened its vault, which is not shown until it signs in).
    expect(within(again).queryByText(/of 6 completed/)).not.toBeInTheDocument();
    expect(within(again).queryByText('Completed')).not.toBeInTheDocument();
    expect(within(again).queryByText('✓')).not.toBeInTheDocument();
    expect(within(item('Open your vault')).getByText('1 task')).toBeInTheDocument();
    expect(within(again).queryByText(/\d\/\d tasks/)).not.toBeInTheDocument();
    expect(screen.queryByText('Your level')).not.toBeInTheDocument();

    await user.click(login);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Login' })).not.toBeInTheDocument(),
    );
    // Signed in: the progress is the user's own.
    expect(await within(again).findByText('1 of 6 completed')).toBeInTheDocument();
    expect(within(item('Open your vault')).getByText('Completed')).toBeInTheDocument();
    expect(within(item('Open your vault')).getByText('1/1 tasks')).toBeInTheDocument();
    // The wallet signed the server's challenge for its own address.
    expect(api.signatures).toEqual([
      { address: ADDRESS, message: `sign in as ${ADDRESS}`, signature: `sign in as ${ADDRESS}` },
    ]);
    expect(start).not.toHaveAttribute('aria-disabled');
  });

  it('asks a new address to Register, with the missions disabled and the reason until it does', async () => {
    api.user = null;
    api.session = null;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    renderApp('/missions?ref=friend42');
    const register = await screen.findByRole('button', { name: 'Register' });
    const start = within(await findItem('Borrow UNIT')).getByRole('button', { name: 'Start' });
    await waitFor(() => expect(start).toHaveAttribute('aria-disabled', 'true'));
    expect(start).toHaveAccessibleDescription(`Borrow UNIT ${MISSION_REASONS['no-user']}`);

    await user.click(register);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Register' })).not.toBeInTheDocument(),
    );
    // Register signs in first: the registration is a write about the user.
    expect(api.signatures.map((s) => s.address)).toEqual([ADDRESS]);
    expect(api.registered).toEqual([{ address: ADDRESS, referral_code: 'friend42' }]);
    expect(within(item('Borrow UNIT')).getByRole('button', { name: 'Start' })).not.toHaveAttribute(
      'aria-disabled',
    );
  });

  it('starts a mission on its drawer, and the repossess mission on /liquidations', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { router } = renderApp('/missions');
    const seen: string[] = [];
    router.subscribe((state) => seen.push(state.location.pathname + state.location.search));
    await user.click(
      await within(await findItem('Borrow UNIT')).findByRole('button', { name: 'Start' }),
    );
    expect(seen).toContain('/?action=borrow');
    // the vault page opens the borrow drawer
    expect(await screen.findByRole('dialog', {}, { timeout: 5_000 })).toBeInTheDocument();

    await router.navigate('/missions');
    await user.click(
      within(await findItem('Repossess a liquidated vault')).getByRole('button', {
        name: 'Start',
      }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/liquidations'));
  });

  it('verifies a started mission: Verify, then In progress..., then completed', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    let answer: (m: MissionDto) => void = () => undefined;
    api.verify = () => new Promise<MissionDto>((resolve) => (answer = resolve));
    const { router } = renderApp('/missions');
    await user.click(within(await findItem('Repay UNIT')).getByRole('button', { name: 'Start' }));
    await router.navigate('/missions');

    const verify = await within(await findItem('Repay UNIT')).findByRole('button', {
      name: 'Verify',
    });
    await user.click(verify);
    const busy = await within(item('Repay UNIT')).findByRole('button', { name: 'In progress...' });
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    expect(api.verified).toEqual([{ id: '4', body: { address: ADDRESS } }]);

    answer(mission('4', 'Repay UNIT', 'repay', true));
    expect(await within(item('Repay UNIT')).findByText('Completed')).toBeInTheDocument();
    expect(screen.getByText('Mission completed: Repay UNIT')).toBeInTheDocument();
    expect(screen.getByText('2 of 6 completed')).toBeInTheDocument();
  });

  it('keeps Verify and says so when the server does not find the mission done', async () => {
    fakeWallet.connectAs();
    const user = userEvent.setup();
    api.verify = (id) => api.missions.find((m) => m.id === id)!;
    localStorage.setItem(`unit.missions.started.${ADDRESS}`, JSON.stringify(['5']));
    renderApp('/missions');
    await user.click(
      await within(await findItem('Withdraw BTC')).findByRole('button', { name: 'Verify' }),
    );
    expect(
      await screen.findByText(
        'Withdraw BTC is not done yet. Finish it in your vault, then verify again.',
      ),
    ).toBeInTheDocument();
    expect(
      within(item('Withdraw BTC')).getByRole('button', { name: 'Verify' }),
    ).toBeInTheDocument();
  });

  it('disables mission 2 without a vault, says why, and ignores a click', async () => {
    scenario.vault = null;
    fakeWallet.connectAs();
    const user = userEvent.setup();
    const { router } = renderApp('/missions');
    const deposit = within(await findItem('Deposit BTC into your vault')).getByRole('button', {
      name: 'Start',
    });
    await waitFor(() => expect(deposit).toHaveAttribute('aria-disabled', 'true'));
    expect(deposit).toHaveAccessibleDescription(
      `Deposit BTC into your vault ${MISSION_REASONS['no-vault']}`,
    );
    await user.click(deposit);
    expect(router.state.location.pathname).toBe('/missions');
    // the other missions do not need a vault
    expect(within(item('Borrow UNIT')).getByRole('button', { name: 'Start' })).not.toHaveAttribute(
      'aria-disabled',
    );
  });

  it('disables every mission while a transaction is pending', async () => {
    const pending = pendingDeposit({});
    localStorage.setItem(pendingStorageKey(ADDRESS), JSON.stringify([pending]));
    fakeWallet.connectAs();
    renderApp('/missions');
    const start = within(await findItem('Borrow UNIT')).getByRole('button', { name: 'Start' });
    await waitFor(() =>
      expect(start).toHaveAccessibleDescription(`Borrow UNIT ${BUTTON_REASONS.pending}`),
    );
    expect(start).toHaveAttribute('aria-disabled', 'true');
  });

  it('shows an error with Try again, and an empty state', async () => {
    fakeWallet.connectAs();
    let fail = true;
    server.use(
      http.get('*/api/missions', () =>
        fail
          ? HttpResponse.json({ error: 'down', code: 'internal' }, { status: 500 })
          : HttpResponse.json([]),
      ),
    );
    const user = userEvent.setup();
    renderApp('/missions');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Missions could not be loaded.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No missions are available right now.')).toBeInTheDocument();
  });
});

async function findItem(title: string) {
  return (await screen.findByRole('heading', { name: title })).closest('li')!;
}
