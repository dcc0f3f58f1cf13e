// Live state: the server pushes price ticks, blocks and vault changes over one
// EventSource (GET /api/events). A pushed price below the vault's liquidation price moves the
// header price, the gauge, the badge and the modal in the same render, with no poll in between.
// EventSource is the `eventsource` package (jsdom has none); MSW's sse() answers at the edge.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { preloadSheet } from '../src/ui/Sheet';
import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse, sse } from 'msw';
import { EventSource as NodeEventSource } from 'eventsource';
import { formatUsd } from '@unit/protocol';
import { FAKE_ACCOUNT, fakeWallet } from './fake-wallet';
import { price, vault } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { scenario, server } from './server';
import { isLive, pollEvery } from '../src/api/live';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

vi.stubGlobal('EventSource', NodeEventSource);

withNetworkEdge();

/** What the stream sends, as MSW types it (a malformed price included, to see it refused). */
type LiveMap = {
  price: { USD: number | string; time: number; stale?: boolean; stale_reason?: string };
  block: { height: number };
  vault: { vault_id: string; kind: string };
};
type StreamClient = Parameters<Parameters<typeof sse<LiveMap>>[1]>[0]['client'];

let stream: StreamClient | null = null;
let priceReads = 0;

beforeEach(() => {
  stream = null;
  priceReads = 0;
  server.use(
    sse<LiveMap>('*/api/events', ({ client }) => {
      stream = client;
    }),
    // The poll keeps answering the old price: only the stream can move it.
    http.get('*/api/bitcoin-price', () => {
      priceReads++;
      return HttpResponse.json(price);
    }),
  );
});

const headerPrice = () => document.querySelector('.price-banner strong')?.textContent;
// The modal hides the page behind it from the accessibility tree; the gauge is still on screen.
const gaugeLabel = () =>
  document
    .querySelector('[role="group"][aria-label^="Collateral ratio"]')
    ?.getAttribute('aria-label');
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function dashboardConnected() {
  fakeWallet.connectAs();
  const rendered = renderApp('/');
  await screen.findByRole('group', { name: /^Collateral ratio 190%/ }, { timeout: 5_000 });
  await waitFor(() => expect(stream).not.toBeNull());
  return rendered;
}

describe('live state over the event stream', () => {
  it('moves the header price, the gauge, the badge and the modal together on a pushed price', async () => {
    await dashboardConnected();
    // The dashboard loads the dialog code once it has painted, before any price can matter.
    await preloadSheet();
    expect(headerPrice()).toBe(formatUsd(95_000));
    const reads = priceReads;

    // 1 BTC backing 50,000 UNIT: 135% at $67,500, the liquidation threshold.
    stream!.send({ event: 'price', data: { USD: 67_500, time: nowSeconds() } });

    await waitFor(() => expect(headerPrice()).toBe(formatUsd(67_500)));
    // The same render: nothing below waits.
    expect(gaugeLabel()).toMatch(/^Collateral ratio 135%/);
    expect(screen.getByText('Liquidating...')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Vault in Liquidation' })).toBeInTheDocument();
    expect(priceReads).toBe(reads);
  });

  it('keeps a newer price when an older one arrives late', async () => {
    await dashboardConnected();
    const time = nowSeconds();
    stream!.send({ event: 'price', data: { USD: 101_000, time } });
    await waitFor(() => expect(headerPrice()).toBe(formatUsd(101_000)));
    stream!.send({ event: 'price', data: { USD: 99_000, time: time - 30 } });
    stream!.send({ event: 'price', data: { USD: 'not a price', time } });
    stream!.send({ event: 'price', data: { USD: 102_000, time: time + 1 } });
    await waitFor(() => expect(headerPrice()).toBe(formatUsd(102_000)));
  });

  it('pauses the actions at once on a pushed stale price, and opens them on the next fresh one', async () => {
    await dashboardConnected();
    const reads = priceReads;
    const time = nowSeconds();
    stream!.send({
      event: 'price',
      data: { USD: 95_000, time, stale: true, stale_reason: 'no_quorum' },
    });
    const banner = await screen.findByTestId('price-paused');
    expect(banner).toHaveTextContent('The guardians have no price quorum');
    expect(screen.getByRole('button', { name: 'Borrow' })).toBeDisabled();
    // no poll was needed to learn it
    expect(priceReads).toBe(reads);
    stream!.send({ event: 'price', data: { USD: 95_100, time: time + 1 } });
    await waitFor(() => expect(screen.queryByTestId('price-paused')).toBeNull());
    expect(screen.getByRole('button', { name: 'Borrow' })).toBeEnabled();
  });

  it("re-reads the vault when the stream says it changed, and the wallet's balance on a block", async () => {
    await dashboardConnected();
    expect(await screen.findByText('In wallet: 10,000.00 UNIT')).toBeInTheDocument();

    scenario.vault = { ...vault, btc_locked: 200_000_000 };
    stream!.send({ event: 'vault', data: { vault_id: vault.vault_id, kind: 'action' } });
    await screen.findByRole('group', { name: /^Collateral ratio 380%/ });

    scenario.unitCents = 1_250_000;
    stream!.send({ event: 'block', data: { height: scenario.tipHeight + 1 } });
    expect(await screen.findByText('In wallet: 12,500.00 UNIT')).toBeInTheDocument();
  });

  it("ignores another vault's change", async () => {
    const { queryClient } = await dashboardConnected();
    const before = queryClient.getQueryState(['vault', FAKE_ACCOUNT.vaultPubkey])!;
    stream!.send({ event: 'vault', data: { vault_id: 'cd'.repeat(32), kind: 'action' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(queryClient.getQueryState(['vault', FAKE_ACCOUNT.vaultPubkey])!.dataUpdateCount).toBe(
      before.dataUpdateCount,
    );
  });

  it('polls rarely while the stream is up, and as before once it drops, re-reading the price', async () => {
    await dashboardConnected();
    const interval = pollEvery(30_000, 300_000);
    await waitFor(() => expect(isLive()).toBe(true));
    expect(interval()).toBe(300_000);
    const reads = priceReads;
    // The server goes away; the browser waits a minute before it tries again.
    stream!.send({ retry: 60_000 });
    stream!.close();
    await waitFor(() => expect(isLive()).toBe(false));
    expect(interval()).toBe(30_000);
    await waitFor(() => expect(priceReads).toBeGreaterThan(reads));
  });

  it('falls back to polling when the server refuses the stream', async () => {
    let asked = 0;
    server.use(
      http.get('*/api/events', () => {
        asked++;
        return HttpResponse.json(
          { error: 'Too many live connections, try again shortly', code: 'rate_limited' },
          { status: 429 },
        );
      }),
    );
    fakeWallet.connectAs();
    renderApp('/');
    await screen.findByRole('group', { name: /^Collateral ratio 190%/ }, { timeout: 5_000 });
    await waitFor(() => expect(asked).toBe(1));
    expect(isLive()).toBe(false);
    expect(pollEvery(30_000, 300_000)()).toBe(30_000);
  });
});
