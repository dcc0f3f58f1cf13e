import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import type { ChartMarker } from '@unit/protocol';
import { ChartMarkers, markerGroups } from './ChartMarkers';

const T0 = 1_790_000_000;
const marker = (action: ChartMarker['action'], timestamp: number, ratio: number): ChartMarker => ({
  action,
  timestamp,
  ratio,
  plotted: ratio,
  priceUsd: 95_000,
  btcAmt: 1_000_000,
  unitAmt: 0,
});
const x = (t: number) => (t - T0) / 10;
const y = (r: number) => 500 - r;

function markersAt(depositTime: number) {
  const groups = markerGroups([marker('o', T0, 190), marker('d', depositTime, 285)], x, y);
  return <ChartMarkers groups={groups} width={800} height={500} onEnter={() => {}} />;
}

describe('chart markers across a refresh', () => {
  it('keeps the focused marker focused when its record moves to its block time, and Home still steps', () => {
    // A pending deposit is first drawn at its broadcast time, then at its block's once confirmed.
    const { rerender } = render(markersAt(T0 + 3_000));
    const [opening, deposit] = screen.getAllByRole('button');
    deposit!.focus();
    expect(deposit).toHaveFocus();

    rerender(markersAt(T0 + 3_010));
    const [, depositAfter] = screen.getAllByRole('button');
    expect(depositAfter).toBe(deposit);
    expect(depositAfter).toHaveFocus();
    expect(screen.getByRole('tooltip')).toHaveTextContent('Deposit BTC');

    fireEvent.keyDown(depositAfter!, { key: 'Home' });
    expect(opening).toHaveFocus();
    expect(screen.getByRole('tooltip')).toHaveTextContent('Open Vault');
  });
});
