// The /network page against the app's HTTP edge: loading, an error and its retry,
// a server that signs alone (enabled: false), a 2-of-3 network with one guardian offline, and the
// page refreshing by itself.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { delay, http, HttpResponse } from 'msw';
import type { GuardianNetworkDto, NetworkGuardianDto } from '@unit/protocol/wire';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';
import { HttpError } from '../src/api/http';
import { networkErrorWords } from '../src/network/errors';
import { formatAgo, formatDuration, shortKey } from '../src/network/format';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const now = () => Math.floor(Date.now() / 1000);
const GROUP_KEY = 'a1'.repeat(32);

const guardian = (id: number, over: Partial<NetworkGuardianDto> = {}): NetworkGuardianDto => ({
  id,
  name: `guardian-${id}`,
  fingerprint: `${id}f2a9c01d4e5b6a7`,
  online: true,
  last_price: { cents: 9_700_000, time: now() - 12 },
  last_signature_at: now() - 180,
  version: '0.1.0',
  uptime_seconds: 7_500,
  ...over,
});

const network = (): GuardianNetworkDto => ({
  enabled: true,
  scheme: 'FROST (RFC 9591, secp256k1, BIP-340)',
  threshold: 2,
  size: 3,
  set_version: 1,
  group_key: GROUP_KEY,
  guardians: [
    guardian(1),
    guardian(2, { last_signature_at: null, last_price: null }),
    guardian(3, {
      online: false,
      last_price: null,
      last_signature_at: null,
      version: null,
      uptime_seconds: null,
    }),
  ],
  older_sets: [],
  recent_exclusions: [],
  history: [],
  checked_at: now(),
});

const OLD_KEY = 'b2'.repeat(32);
/** After a rotation that replaced guardian 3: set 2 signs, set 1 still lives with 3 gone. */
const rotated = (): GuardianNetworkDto => ({
  ...network(),
  set_version: 2,
  guardians: [
    guardian(1),
    guardian(2),
    guardian(3, { name: 'new-3', fingerprint: '9e9e9e9e9e9e9e9e' }),
  ],
  older_sets: [
    {
      set_version: 1,
      threshold: 2,
      size: 3,
      group_key: OLD_KEY,
      guardians: [
        guardian(1),
        guardian(2),
        guardian(3, { name: 'old-3', online: false, last_price: null, last_signature_at: null }),
      ],
    },
  ],
});

let answer: () => Response | Promise<Response>;
let asked = 0;

beforeEach(() => {
  asked = 0;
  answer = () => HttpResponse.json(network());
  server.use(
    http.get('*/api/network', () => {
      asked++;
      return answer();
    }),
  );
});

const card = (name: string) => screen.getByRole('listitem', { name });
const fact = (scope: HTMLElement, term: string) =>
  within(scope).getByText(term, { selector: 'dt' }).nextElementSibling?.textContent;

describe('the /network page', () => {
  it('shows the threshold, the group key and every guardian, one of them offline', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderApp('/network');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Guardian network' }),
    ).toBeVisible();
    expect(
      await screen.findByText('2 of 3 guardians must approve every vault transaction.'),
    ).toBeVisible();
    expect(screen.getByText(shortKey(GROUP_KEY))).toHaveAttribute('title', GROUP_KEY);
    await user.click(screen.getByRole('button', { name: 'Copy the group key' }));
    expect(writeText).toHaveBeenCalledWith(GROUP_KEY);

    const list = screen.getByRole('list', { name: 'Guardians' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    const first = card('guardian-1');
    expect(within(first).getByText('Online')).toBeVisible();
    expect(fact(first, 'Key fingerprint')).toBe('1f2a9c01d4e5b6a7');
    // 12 s old when answered; a second may have passed since
    expect(fact(first, 'Last price')).toMatch(/^\$97,000\.00, 1[23] s ago$/);
    expect(fact(first, 'Last signature')).toBe('3 min ago');
    expect(fact(first, 'Version')).toBe('0.1.0');
    expect(fact(first, 'Uptime')).toBe('2 h 5 min');
    const second = card('guardian-2');
    expect(fact(second, 'Last price')).toBe('None yet');
    expect(fact(second, 'Last signature')).toBe('None since start');
    // Offline is said in words (and an icon), not by colour alone.
    const third = card('guardian-3');
    expect(within(third).getByText('Offline')).toBeVisible();
    expect(fact(third, 'Key fingerprint')).toBe('3f2a9c01d4e5b6a7');
    expect(fact(third, 'Last signature')).toBe('Unknown while offline');
    expect(fact(third, 'Uptime')).toBe('Unknown while offline');
    expect(screen.getByText('2 of 3 guardians')).toBeVisible();
  });

  it('after a rotation lists the current set first, then the retiring one, each labelled', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    answer = () => HttpResponse.json(rotated());
    renderApp('/network');
    expect(
      await screen.findByText('2 of 3 guardians must approve every vault transaction.'),
    ).toBeVisible();
    const titles = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(titles).toEqual(['Set 2 (current)', 'Set 1 (retiring)', 'Recent exclusions']);
    expect(screen.queryByRole('list', { name: 'Guardians' })).toBeNull();
    const current = screen.getByRole('list', { name: 'Guardians of set 2' });
    const older = screen.getByRole('list', { name: 'Guardians of set 1' });
    // The newest set comes first in the page, as it does on the wire.
    expect(current.compareDocumentPosition(older) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const names = (list: HTMLElement) =>
      within(list)
        .getAllByRole('heading', { level: 3 })
        .map((h) => h.textContent);
    expect(names(current)).toEqual(['guardian-1', 'guardian-2', 'new-3']);
    expect(names(older)).toEqual(['guardian-1', 'guardian-2', 'old-3']);
    const old3 = within(older).getByRole('listitem', { name: 'old-3' });
    expect(within(old3).getByText('Offline')).toBeVisible();
    expect(fact(old3, 'Last signature')).toBe('Unknown while offline');
    expect(fact(within(current).getByRole('listitem', { name: 'new-3' }), 'Key fingerprint')).toBe(
      '9e9e9e9e9e9e9e9e',
    );
    expect(
      screen.getByText(/^2 of its 3 guardians still approve the vaults that have not acted/),
    ).toBeVisible();
    expect(screen.getByText('2 of 3 guardians', { selector: 'dd' })).toBeVisible();
    expect(screen.getByText(shortKey(OLD_KEY))).toHaveAttribute('title', OLD_KEY);
    await user.click(screen.getByRole('button', { name: 'Copy the set 1 group key' }));
    expect(writeText).toHaveBeenCalledWith(OLD_KEY);
    // Every card's heading id is unique across the two sets (each card is named by its own).
    const ids = [...document.querySelectorAll('.guardian__name')].map((h) => h.id);
    expect(new Set(ids).size).toBe(6);
  });

  it('lists the recent exclusions: who, why in words, when, and the coordinator’s sentence', async () => {
    answer = () =>
      HttpResponse.json({
        ...network(),
        recent_exclusions: [
          {
            guardian_id: 3,
            name: 'guardian-3',
            set_version: 1,
            cause: 'stalled',
            reason: 'no signature share in time (session 1)',
            at: now() - 120,
          },
          {
            guardian_id: 2,
            name: 'guardian-2',
            set_version: 1,
            cause: 'bad-share',
            reason: 'bad signature share',
            at: now() - 3_600,
          },
        ],
      });
    renderApp('/network');
    const list = await screen.findByRole('list', { name: 'Recent exclusions' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent(
      /^guardian-3Stalled2 min agono signature share in time \(session 1\)$/,
    );
    expect(within(items[1]!).getByText('Bad signature share')).toBeVisible();
    expect(within(items[1]!).getByText('1 h ago')).toBeVisible();
    expect(screen.getByRole('heading', { level: 2, name: 'Recent exclusions' })).toBeVisible();
  });

  it('says when no guardian was left out, and shows no exclusions when the server signs alone', async () => {
    const { unmount } = renderApp('/network');
    expect(
      await screen.findByText(
        'No guardian has been left out of a signing since the server started.',
      ),
    ).toBeVisible();
    unmount();
    answer = () => HttpResponse.json({ ...network(), enabled: false, guardians: [] });
    renderApp('/network');
    await screen.findByText(/This server signs alone/);
    expect(screen.queryByRole('heading', { name: 'Recent exclusions' })).toBeNull();
  });

  it('says when the server signs alone, with its one key and no guardian list', async () => {
    answer = () =>
      HttpResponse.json({
        ...network(),
        enabled: false,
        threshold: 1,
        size: 1,
        set_version: 0,
        guardians: [],
      });
    renderApp('/network');
    expect(
      await screen.findByText(/This server signs alone: its one guardian key approves/),
    ).toBeVisible();
    expect(screen.getByRole('button', { name: 'Copy the guardian key' })).toBeVisible();
    expect(screen.queryByRole('list', { name: 'Guardians' })).toBeNull();
    expect(screen.queryByText(/guardians must approve/)).toBeNull();
  });

  it('shows a loading state, then an error with its reason, and retries on request', async () => {
    const user = userEvent.setup();
    answer = async () => {
      await delay(300);
      return HttpResponse.json(
        {
          error: 'The published guardian set does not verify: bad signature',
          code: 'not_configured',
        },
        { status: 503 },
      );
    };
    renderApp('/network');
    expect(
      await screen.findByRole('status', { name: 'Loading the guardian network' }),
    ).toBeVisible();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'The guardian network could not be read. The published guardian set does not verify: bad signature.',
    );
    answer = () => HttpResponse.json(network());
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('list', { name: 'Guardians' })).toBeVisible();
  });

  it('says what went wrong in words when the server fails or cannot be reached', async () => {
    answer = () => new HttpResponse('Bad gateway', { status: 502 });
    const { unmount } = renderApp('/network');
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent(
      'The guardian network could not be read. The server could not answer (error 502).',
    );
    unmount();
    // No answer at all (the server down): fetch's own "Failed to fetch" is not shown.
    answer = () => HttpResponse.error();
    renderApp('/network');
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 });
    expect(alert).toHaveTextContent(
      'The guardian network could not be read. The server could not be reached.',
    );
    expect(alert).not.toHaveTextContent(/fetch/i);
  }, 30_000);

  it('keeps the last answer when a refresh fails, and says so', async () => {
    const { queryClient } = renderApp('/network');
    await screen.findByRole('list', { name: 'Guardians' });
    answer = () => new HttpResponse('Bad gateway', { status: 502 });
    await queryClient.refetchQueries({ queryKey: ['network'] });
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Could not refresh. The server could not answer (error 502). Showing the last answer; the page tries again every 10 s.',
    );
    expect(
      within(screen.getByRole('list', { name: 'Guardians' })).getAllByRole('listitem'),
    ).toHaveLength(3);
  });

  it('says when too few guardians are online to sign, and when the set lists none', async () => {
    const offline = { online: false, last_price: null, version: null, uptime_seconds: null };
    answer = () =>
      HttpResponse.json({
        ...network(),
        guardians: [guardian(1), guardian(2, offline), guardian(3, offline)],
      });
    const { unmount } = renderApp('/network');
    expect(
      await screen.findByText(
        'Only 1 of 3 guardians is online, and 2 must approve: vault transactions wait until enough are back.',
      ),
    ).toBeVisible();
    unmount();
    answer = () => HttpResponse.json({ ...network(), guardians: [] });
    renderApp('/network');
    expect(await screen.findByText('The published set lists no guardians.')).toBeVisible();
    expect(screen.getByText(/^No guardian is online, and 2 must approve/)).toBeVisible();
    expect(screen.queryByRole('list', { name: 'Guardians' })).toBeNull();
  });

  it('says a guardian the local network stopped restarting is stopped, and why in words', async () => {
    const stopped =
      "Stopped: its starts kept failing, so it is not restarted. The server's log says why; its operator restores its directory from backup and restarts the network.";
    answer = () =>
      HttpResponse.json({
        ...network(),
        guardians: [
          guardian(1),
          guardian(2),
          guardian(3, {
            online: false,
            last_price: null,
            version: null,
            uptime_seconds: null,
            stopped,
          }),
        ],
      });
    renderApp('/network');
    const third = await screen.findByRole('listitem', { name: 'guardian-3' });
    expect(within(third).getByText('Stopped')).toBeVisible();
    expect(within(third).getByText(stopped)).toBeVisible();
    expect(within(third).queryByText('Offline')).toBeNull();
    expect(within(card('guardian-1')).queryByText(stopped)).toBeNull();
  });

  it('says nothing of a shortfall while enough guardians are online', async () => {
    renderApp('/network');
    await screen.findByRole('list', { name: 'Guardians' });
    // 2 of 3 online (the fixture's third is offline), 2 must approve: enough.
    expect(screen.queryByText(/must approve: vault transactions wait/)).toBeNull();
  });

  it('refreshes by itself: a guardian coming back shows online', async () => {
    renderApp('/network');
    await screen.findByRole('list', { name: 'Guardians' });
    expect(within(card('guardian-3')).getByText('Offline')).toBeVisible();
    const before = asked;
    answer = () =>
      HttpResponse.json({
        ...network(),
        guardians: [guardian(1), guardian(2), guardian(3, { uptime_seconds: 4 })],
        checked_at: now(),
      });
    await waitFor(() => expect(within(card('guardian-3')).getByText('Online')).toBeVisible(), {
      timeout: 13_000,
    });
    expect(asked).toBe(before + 1);
    expect(fact(card('guardian-3'), 'Uptime')).toBe('4 s');
  }, 20_000);

  it('is linked from the main navigation', async () => {
    const user = userEvent.setup();
    server.use(http.get('*/api/liquidations', () => HttpResponse.json([])));
    renderApp('/liquidations');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('link', { name: 'Network' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Guardian network' }),
    ).toBeVisible();
  });
});

describe('the page words for a failed read', () => {
  it('names a time-out, the server’s own reason, and a refusal', () => {
    expect(networkErrorWords(new DOMException('signal timed out', 'TimeoutError'))).toBe(
      'The server did not answer in time.',
    );
    expect(
      networkErrorWords(
        new HttpError('The guardian network has not published its set yet', 503, 'not_configured'),
      ),
    ).toBe('The guardian network has not published its set yet.');
    expect(networkErrorWords(new HttpError('Request failed (403)', 403, null))).toBe(
      'The server refused the request (error 403).',
    );
  });
});

describe('the page words for times', () => {
  it('says durations in their two largest units and past times as ago', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(200)).toBe('3 min 20 s');
    expect(formatDuration(3_600)).toBe('1 h');
    expect(formatDuration(90_061)).toBe('1 d 1 h');
    const t = 1_800_000_000;
    expect(formatAgo(t, t * 1000 + 2_000)).toBe('just now');
    expect(formatAgo(t, t * 1000 + 12_000)).toBe('12 s ago');
    expect(formatAgo(t, t * 1000 + 200_000)).toBe('3 min ago');
    expect(formatAgo(t, t * 1000 + 7_500_000)).toBe('2 h ago');
    expect(shortKey('a1'.repeat(32))).toBe('a1a1a1a1…a1a1a1a1');
  });
});
