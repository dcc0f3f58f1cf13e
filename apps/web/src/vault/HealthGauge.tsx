import { useState } from 'react';
import { Sheet } from '../ui/Sheet';
import { TAP_INFO_QUERY, useMediaQuery } from '../ui/useMediaQuery';
import {
  GAUGE_MAX,
  LIQUIDATION_THRESHOLD_PERCENT,
  bandRange,
  content,
  formatHealth,
  healthBand,
  type HealthBand,
} from '../protocol-gaps';

// SPEC §9: Risky 135-160 (red), Moderate 161-195 (yellow), Healthy 196-230+ (green).
const ARCS: { band: HealthBand; from: number; to: number; colour: string }[] = [
  { band: 'Risky', from: LIQUIDATION_THRESHOLD_PERCENT, to: 160, colour: 'var(--red)' },
  { band: 'Moderate', from: 160, to: 195, colour: 'var(--yellow)' },
  { band: 'Healthy', from: 195, to: GAUGE_MAX, colour: 'var(--green)' },
];

// Hand-written arcs rather than d3: the gauge is in the dashboard's initial chunk (bundle budget).
// Angles run from -90° (135%) to +90° (230%), measured from 12 o'clock.
const angle = (ratio: number) => {
  const clamped = Math.min(GAUGE_MAX, Math.max(LIQUIDATION_THRESHOLD_PERCENT, ratio));
  return (
    -Math.PI / 2 +
    ((clamped - LIQUIDATION_THRESHOLD_PERCENT) / (GAUGE_MAX - LIQUIDATION_THRESHOLD_PERCENT)) *
      Math.PI
  );
};
const point = (a: number, r: number) =>
  `${(Math.sin(a) * r).toFixed(2)} ${(-Math.cos(a) * r).toFixed(2)}`;
const PAD = 0.015;
function arcPath(d: { from: number; to: number }): string {
  const a0 = angle(d.from) + PAD;
  const a1 = angle(d.to) - PAD;
  const [inner, outer] = [70, 90];
  return `M ${point(a0, outer)} A ${outer} ${outer} 0 0 1 ${point(a1, outer)} L ${point(a1, inner)} A ${inner} ${inner} 0 0 0 ${point(a0, inner)} Z`;
}

/** Vault health gauge: three arcs, the vault's marker, range subtitle on hover, Deposit shortcut. */
export function HealthGauge(props: {
  ratio: number;
  hasDebt: boolean;
  onDeposit: () => void;
  depositEnabled: boolean;
}) {
  const band = props.hasDebt ? healthBand(props.ratio) : 'Healthy';
  const [hovered, setHovered] = useState<HealthBand | null>(null);
  const [info, setInfo] = useState<HealthBand | null>(null);
  const tapForInfo = useMediaQuery(TAP_INFO_QUERY);
  const shown = hovered ?? band;
  const a = angle(props.hasDebt ? props.ratio : GAUGE_MAX);
  const marker = { x: Math.sin(a) * 100, y: -Math.cos(a) * 100 };
  const label = props.hasDebt ? formatHealth(props.ratio) : 'N/A';
  return (
    <section className="card gauge" aria-labelledby="gauge-title">
      <h2 id="gauge-title" className="card__title">
        Vault health
      </h2>
      <svg
        viewBox="-110 -110 220 130"
        className="gauge__svg"
        // a group, not an img: its arcs are focusable controls that open the band's info
        role="group"
        aria-label={`Collateral ratio ${label}, ${band ?? 'liquidatable'}`}
      >
        {ARCS.map((d) => (
          <path
            key={d.band}
            d={arcPath(d)}
            fill={d.colour}
            opacity={shown === d.band ? 1 : 0.35}
            data-band={d.band}
            tabIndex={0}
            role="button"
            aria-label={`${d.band} ${bandRange[d.band]}`}
            onMouseEnter={() => setHovered(d.band)}
            onMouseLeave={() => setHovered(null)}
            onFocus={() => setHovered(d.band)}
            onBlur={() => setHovered(null)}
            onClick={() => tapForInfo && setInfo(d.band)}
          />
        ))}
        <g transform={`translate(${marker.x} ${marker.y})`} className="gauge__marker">
          <circle r="6" />
        </g>
        <text y="-18" textAnchor="middle" className="gauge__value">
          {label}
        </text>
        <text y="4" textAnchor="middle" className="gauge__band">
          {band ?? 'Liquidatable'}
        </text>
      </svg>
      <p className="gauge__subtitle" aria-live="polite">
        {hovered ? (
          <>
            {hovered}: {bandRange[hovered]}
            {hovered === band && (
              <strong className="gauge__here"> {content.vault.youAreHere}</strong>
            )}
          </>
        ) : band ? (
          bandRange[band]
        ) : (
          'Below 135%'
        )}
      </p>
      {props.hasDebt && (band === 'Risky' || band === 'Moderate' || band == null) && (
        <button
          type="button"
          className="btn btn--small"
          aria-label="Deposit to improve health"
          onClick={props.onDeposit}
          disabled={!props.depositEnabled}
        >
          Deposit
        </button>
      )}
      <Sheet
        open={info != null}
        onOpenChange={(o) => !o && setInfo(null)}
        title={info ?? ''}
        placement="bottom-sheet"
        description={info ? bandRange[info] : ''}
      >
        {info === band && <p className="gauge__here">{content.vault.youAreHere}</p>}
      </Sheet>
    </section>
  );
}
