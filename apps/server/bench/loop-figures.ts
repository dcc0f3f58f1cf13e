// Nothing blocks the loop: the app under the bench's loads (its hot read routes, the page with a
// returning wallet's first dashboard drawn by the server, and ten CSV exports of a long history),
// each load on an app of its own, and the longest the app held its event loop meanwhile (loop.ts)
// beside the goal of 10 ms.
import type { LoopPauses } from './loop';
import { throughput, type Child, type Figure, type LoadRequest } from './measure';
import { VAULT_ID, VAULT_PUBKEY } from './seed';

/** No handler or job holds the event loop longer than this at a time. */
export const LOOP_HOLD_GOAL_MS = 10;

/** The read routes a page asks, and the page itself for a wallet with a vault and for none. */
export function readLoad(): LoadRequest[] {
  const vault = encodeURIComponent(VAULT_ID);
  return [
    '/api/bitcoin-price',
    '/api/config',
    `/api/vaults?pubkey=${VAULT_PUBKEY}`,
    `/api/vaults/${vault}/history?limit=20`,
    `/api/vaults/${vault}/points?timePeriod=24h`,
    '/api/price-history?timePeriod=24h',
    { method: 'GET', path: '/', headers: { 'accept-encoding': 'br' } },
    {
      method: 'GET',
      path: '/',
      headers: { 'accept-encoding': 'br', cookie: `unit_vault_key=${VAULT_PUBKEY}` },
    },
  ];
}

/** Loads `app` with the read routes for `rounds` runs of the bench's load length. */
export async function loadReads(app: Child, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) await throughput(app.url, readLoad());
}

/** The figure of one load: the app's own longest hold, the clock's delays printed beside it. */
export function loopFigure(load: string, pauses: LoopPauses): Figure {
  return {
    name: `longest hold of the event loop, ${load} (ms)`,
    value: pauses.busyMs,
    goal: { max: LOOP_HOLD_GOAL_MS },
    noise: 0,
    unit: ' ms',
  };
}

/** One line on what the clock saw, for each figure above (not judged: see loop.ts). */
export function loopClockLine(load: string, pauses: LoopPauses, bare?: LoopPauses): string {
  return (
    `  ${load}: monitorEventLoopDelay max ${pauses.wallMs.toFixed(1)} ms, p99 ` +
    `${pauses.wallP99Ms.toFixed(1)} ms; own holds p99 ${pauses.busyP99Ms.toFixed(1)} ms ` +
    `(${pauses.source})` +
    (bare ? `; the bare server's max under its load ${bare.wallMs.toFixed(1)} ms` : '')
  );
}
