// The /network page's history of the guardian sets: each set newest first, what it changed from
// the set it replaced, who joined and left, its members, when it was published, and whether its
// guardians still sign for it.
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { GuardianNetworkDto, NetworkHistoryEntryDto } from '@unit/protocol/wire';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';
import { shortKey } from '../src/network/format';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const now = () => Math.floor(Date.now() / 1000);
const KEY = 'c3'.repeat(32);
const member = (id: number, name: string) => ({ id, name, fingerprint: `${id}`.repeat(16) });

const entry = (over: Partial<NetworkHistoryEntryDto>): NetworkHistoryEntryDto => ({
  set_version: 1,
  change: 'created',
  replaces: null,
  threshold: 2,
  size: 3,
  group_key: KEY,
  members: [member(1, 'alpha'), member(2, 'beta'), member(3, 'gamma')],
  joined: [],
  left: [],
  published_at: now() - 7_200,
  signing: false,
  ...over,
});

const network = (history: NetworkHistoryEntryDto[]): GuardianNetworkDto => ({
  enabled: true,
  scheme: 'FROST (RFC 9591, secp256k1, BIP-340)',
  threshold: 2,
  size: 3,
  set_version: 3,
  group_key: KEY,
  guardians: [],
  older_sets: [],
  recent_exclusions: [],
  history,
  checked_at: now(),
});

const answer = (body: GuardianNetworkDto) =>
  server.use(http.get('*/api/network', () => HttpResponse.json(body)));

describe('the guardian sets’ history on /network', () => {
  it('lists each set newest first with what replaced what, who joined and left, and when', async () => {
    answer(
      network([
        entry({
          set_version: 3,
          change: 'repair',
          replaces: 2,
          members: [member(1, 'alpha'), member(2, 'delta'), member(3, 'gamma-2')],
          joined: ['gamma-2'],
          left: ['gamma'],
          published_at: now() - 60,
          signing: true,
        }),
        entry({
          set_version: 2,
          change: 'reshare',
          replaces: 1,
          members: [member(1, 'alpha'), member(2, 'delta'), member(3, 'gamma')],
          joined: ['delta'],
          left: ['beta'],
          published_at: null,
        }),
        entry({}),
      ]),
    );
    renderApp('/network');
    // The page's chunk loads lazily; on a loaded machine that takes more than a second.
    const list = await screen.findByRole('list', { name: 'Guardian set history' }, { timeout: 15_000 }); // prettier-ignore
    const sets = within(list).getAllByRole('listitem');
    expect(sets.map((s) => s.getAttribute('aria-label'))).toEqual(['Set 3', 'Set 2', 'Set 1']);
    const [v3, v2, v1] = sets;
    expect(v3).toHaveTextContent('A lost share rebuilt, same group key, replacing set 2.');
    expect(v3).toHaveTextContent('Published 1 min ago');
    expect(v3).not.toHaveTextContent('no longer signs');
    expect(v3).toHaveTextContent('Joined: gamma-2. Left: gamma.');
    expect(v3).toHaveTextContent(`2 of 3: alpha (${'1'.repeat(16)}), delta (${'2'.repeat(16)}), gamma-2 (${'3'.repeat(16)}).`); // prettier-ignore
    expect(within(v3!).getByText(shortKey(KEY))).toHaveAttribute('title', KEY);
    expect(v2).toHaveTextContent('Members changed, same group key, replacing set 1.');
    expect(v2).toHaveTextContent('Publication time unknown · no longer signs');
    expect(v2).toHaveTextContent('Joined: delta. Left: beta.');
    expect(v1).toHaveTextContent('Created by the first key generation.');
    expect(v1).toHaveTextContent('Published 2 h ago · no longer signs');
    expect(v1).not.toHaveTextContent('Joined');
  });

  it('shows no history while the server signs alone', async () => {
    answer({ ...network([]), enabled: false, threshold: 1, size: 1, set_version: 0 });
    renderApp('/network');
    expect(
      await screen.findByText(/This server signs alone/, {}, { timeout: 15_000 }),
    ).toBeVisible();
    expect(screen.queryByRole('list', { name: 'Guardian set history' })).toBeNull();
  });
});
