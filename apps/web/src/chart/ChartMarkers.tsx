// The actions on the ratio chart: one marker per action at the ratio the vault had just after it
// (@unit/protocol chartMarkers), each a button that says what happened when hovered, tapped or
// focused. Markers that would cover one another are one marker listing each action, never a
// stack drawn at heights the vault never had.
import { useId, useState, type KeyboardEvent, type SyntheticEvent } from 'react';
import {
  ACTION_COLOURS,
  ACTION_LABELS,
  CHART_MARKER_LETTERS,
  formatHealth,
  markerAmountText,
  markerDescription,
  type ChartMarker,
} from '@unit/protocol';
import { formatMoment } from './axis';

/** A marker's diameter; closer than this, two markers are drawn as one. */
const SIZE = 18;
const TIP_WIDTH = 220;

export interface MarkerGroup {
  px: number;
  py: number;
  /** in time order; the group sits where its latest action left the ratio */
  markers: ChartMarker[];
}

/** Markers that would overlap, grouped: each group at its latest action's own place. */
export function markerGroups(
  markers: readonly ChartMarker[],
  x: (t: number) => number,
  y: (ratio: number) => number,
): MarkerGroup[] {
  const groups: MarkerGroup[] = [];
  for (const m of markers) {
    const px = x(m.timestamp);
    const py = y(m.plotted);
    const near = groups.find((g) => Math.abs(g.px - px) < SIZE && Math.abs(g.py - py) < SIZE);
    if (near) Object.assign(near, { px, py, markers: [...near.markers, m] });
    else groups.push({ px, py, markers: [m] });
  }
  // left to right, as the arrow keys step through them
  return groups.sort((a, b) => a.px - b.px);
}

const describe = (m: ChartMarker) => markerDescription(m, formatMoment(m.timestamp));

/** Events inside a marker are the marker's: the plot's crosshair and keys stay out of them. */
const own = (e: SyntheticEvent) => e.stopPropagation();

export function ChartMarkers({
  groups,
  width,
  height,
  onEnter,
}: {
  groups: MarkerGroup[];
  width: number;
  height: number;
  /** a marker took the pointer or the focus: the plot puts its crosshair away */
  onEnter: () => void;
}) {
  const tipId = useId();
  const [shown, setShown] = useState<number | null>(null);
  // one tab stop for all the markers; the arrow keys move between them
  const [roving, setRoving] = useState(0);
  const focusAt = (i: number, target: HTMLElement) => {
    const buttons = target.parentElement?.querySelectorAll<HTMLButtonElement>('.chart__marker');
    buttons?.[i]?.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const last = groups.length - 1;
    const next =
      e.key === 'ArrowLeft' || e.key === 'ArrowUp'
        ? i - 1
        : e.key === 'ArrowRight' || e.key === 'ArrowDown'
          ? i + 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? last
              : null;
    if (e.key === 'Escape' && shown != null) {
      // the tooltip goes; a fullscreen chart stays (its Escape is the next one)
      own(e);
      setShown(null);
    }
    if (next == null) return;
    // the plot's own arrow keys step its points; these step the markers
    own(e);
    e.preventDefault();
    focusAt(Math.max(0, Math.min(last, next)), e.currentTarget);
  };
  const show = (i: number) => {
    onEnter();
    setShown(i);
    setRoving(i);
  };
  const active = shown != null ? groups[shown] : undefined;
  return (
    <div className="chart__markers" role="group" aria-label="Actions on the chart">
      {groups.map((g, i) => {
        const latest = g.markers.at(-1)!;
        const many = g.markers.length > 1;
        return (
          <button
            // Keyed by place, as the tooltip and the tab stop are (indices above): a marker whose
            // record moves in time (a pending action confirmed in a block) or joins a group stays
            // the same element, so the history's refresh every block never takes its focus away.
            key={i}
            type="button"
            className={`chart__marker chart__marker--${many ? 'many' : ACTION_COLOURS[latest.action]}`}
            style={{ left: g.px - SIZE / 2, top: g.py - SIZE / 2 }}
            tabIndex={i === roving ? 0 : -1}
            // a group's visible count starts its name (WCAG 2.5.3, label in name)
            aria-label={
              many
                ? `${g.markers.length} actions: ${g.markers.map(describe).join(' ')}`
                : describe(latest)
            }
            aria-describedby={shown === i ? tipId : undefined}
            data-action={g.markers.map((m) => m.action).join('')}
            onPointerEnter={() => show(i)}
            onPointerLeave={(e) => e.pointerType === 'mouse' && setShown(null)}
            onPointerMove={own}
            onPointerDown={own}
            onFocus={(e) => {
              own(e);
              show(i);
            }}
            onBlur={(e) => {
              own(e);
              setShown(null);
            }}
            onKeyDown={(e) => onKey(e, i)}
          >
            <span aria-hidden="true">
              {many ? g.markers.length : CHART_MARKER_LETTERS[latest.action]}
            </span>
          </button>
        );
      })}
      {active && (
        <div
          id={tipId}
          role="tooltip"
          className="chart__tooltip chart__marker-tip"
          style={{
            width: TIP_WIDTH,
            left: Math.max(4, Math.min(width - TIP_WIDTH - 4, active.px - TIP_WIDTH / 2)),
            // under the marker in the upper half, above it in the lower half
            ...(active.py < height / 2
              ? { top: active.py + SIZE / 2 + 6 }
              : { bottom: height - active.py + SIZE / 2 + 6 }),
          }}
        >
          {active.markers.map((m) => (
            <span key={`${m.action}-${m.timestamp}`} className="chart__marker-tip-item">
              <strong className="chart__tooltip-action">{ACTION_LABELS[m.action]}</strong>
              <span>{markerAmountText(m)}</span>
              <span className="chart__tooltip-date">{formatMoment(m.timestamp)}</span>
              <span>
                {/* a claim empties the vault: its ratio is the one it was claimed at */}
                {m.action === 'x' ? 'Ratio at the claim' : 'Ratio after'}{' '}
                <strong className="num">{formatHealth(m.ratio)}</strong>
              </span>
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
