import { useState } from 'react';
import {
  CONTENT,
  GAUGE_ARCS,
  gaugeArcPath,
  gaugeMarker,
  HEALTH_BAND_COLOURS,
  HEALTH_BAND_LABELS,
  HEALTH_BAND_RANGES,
  LIQUIDATION_THRESHOLD_PERCENT,
  formatHealth,
  healthBand,
  type ButtonState,
  type HealthBand,
} from '@unit/protocol';
import { ReasonButton } from '../ui/ReasonButton';
import { Sheet } from '../ui/Sheet';
import { TAP_INFO_QUERY, useMediaQuery } from '../ui/useMediaQuery';

const label = (band: HealthBand) => HEALTH_BAND_LABELS[band];
const BAND_SENTENCES: Record<HealthBand, string> = CONTENT.reading.gaugeBands;

/** Vault health gauge: three arcs, the vault's marker, range subtitle on hover, Deposit shortcut. */
export function HealthGauge(props: {
  ratio: number;
  hasDebt: boolean;
  onDeposit: () => void;
  /** the dashboard's Deposit button state: the shortcut is the same action (SPEC §4) */
  deposit: ButtonState;
  /** liquidated: a deposit can no longer save the vault, so no shortcut */
  liquidated?: boolean;
  /** repossessed: the vault holds nothing, its gauge has no marker */
  repossessed?: boolean;
  /** the ratio after a transaction waiting for its block, labelled (the gauge reads the confirmed) */
  pendingAfter?: string | null;
}) {
  // SPEC §9: no band below 135% or when the ratio is not finite (no debt).
  const band = props.hasDebt ? healthBand(props.ratio) : null;
  const [hovered, setHovered] = useState<HealthBand | null>(null);
  const [info, setInfo] = useState<HealthBand | null>(null);
  const tapForInfo = useMediaQuery(TAP_INFO_QUERY);
  const shown = hovered ?? band;
  // Without debt nothing can be liquidated: the marker rests at the healthy end.
  const marker = gaugeMarker(props.ratio, props.hasDebt);
  // SPEC §5: N/A without debt (an infinite ratio), 500+% at 500 or more.
  const value = props.hasDebt ? formatHealth(props.ratio) : formatHealth(Infinity);
  const bandText = band ? label(band) : props.hasDebt ? 'Liquidatable' : '';
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
        aria-label={`Collateral ratio ${value}${props.hasDebt ? `, ${band ? label(band) : 'liquidatable'}` : ''}`}
      >
        {GAUGE_ARCS.map((d) => (
          <path
            key={d.band}
            d={gaugeArcPath(d)}
            fill={`var(--${HEALTH_BAND_COLOURS[d.band]})`}
            opacity={shown === d.band ? 1 : 0.35}
            data-band={d.band}
            tabIndex={0}
            role="button"
            aria-label={`${label(d.band)} ${HEALTH_BAND_RANGES[d.band]}`}
            onMouseEnter={() => setHovered(d.band)}
            onMouseLeave={() => setHovered(null)}
            onFocus={() => setHovered(d.band)}
            onBlur={() => setHovered(null)}
            onClick={() => tapForInfo && setInfo(d.band)}
            // the keyboard's way to the band's info, at any width
            onKeyDown={(event) => {
              if (event.key !== 'Enter' && event.key !== ' ') return;
              event.preventDefault();
              setInfo(d.band);
            }}
          />
        ))}
        {!props.repossessed && (
          <g
            transform={`translate(${marker.x} ${marker.y})`}
            className="gauge__marker"
            data-testid="gauge-marker"
          >
            <circle r="6" />
          </g>
        )}
        <text y="-18" textAnchor="middle" className="gauge__value">
          {value}
        </text>
        <text y="4" textAnchor="middle" className="gauge__band">
          {bandText}
        </text>
      </svg>
      <p className="gauge__subtitle" aria-live="polite">
        {hovered ? (
          <>
            <span>
              {label(hovered)}: {HEALTH_BAND_RANGES[hovered]}
            </span>
            {hovered === band && (
              <strong className="gauge__here">{CONTENT.gauge.youAreHere}</strong>
            )}
          </>
        ) : band ? (
          HEALTH_BAND_RANGES[band]
        ) : props.hasDebt ? (
          `Below ${LIQUIDATION_THRESHOLD_PERCENT}%`
        ) : null}
      </p>
      {props.pendingAfter && (
        <p className="pending-figure num" data-testid="pending-figure">
          <span className="badge badge--pending">{CONTENT.reading.pending.label}</span>
          {props.pendingAfter}
        </p>
      )}
      {props.hasDebt &&
        !props.liquidated &&
        !props.repossessed &&
        (band === 'risky' || band === 'moderate' || band == null) && (
          <ReasonButton
            size="small"
            aria-label="Deposit to improve health"
            enabled={props.deposit.enabled}
            reason={props.deposit.enabled ? null : props.deposit.reason}
            onClick={props.onDeposit}
          >
            Deposit
          </ReasonButton>
        )}
      <Sheet
        open={info != null}
        onOpenChange={(o) => !o && setInfo(null)}
        title={info ? label(info) : ''}
        placement="bottom-sheet"
        description={info ? HEALTH_BAND_RANGES[info] : ''}
      >
        {info === band && <p className="gauge__here">{CONTENT.gauge.youAreHere}</p>}
        {/* each band and the liquidation line in one sentence, the tapped band first */}
        <ul className="gauge__explain">
          {info && <li className="gauge__explain--current">{BAND_SENTENCES[info]}</li>}
          {(['risky', 'moderate', 'healthy'] as const)
            .filter((b) => b !== info)
            .map((b) => (
              <li key={b}>{BAND_SENTENCES[b]}</li>
            ))}
          <li>{CONTENT.reading.gaugeBands.line}</li>
        </ul>
      </Sheet>
    </section>
  );
}
