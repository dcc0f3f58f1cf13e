import {
  HEALTH_BAND_LABELS,
  collateralRatio,
  formatHealth,
  formatUsdCents,
  healthBand,
  liquidationThresholdCents,
  type PriceInput,
  type VaultState,
} from '@unit/protocol';

const NONE = '—';

/** The live "before -> after" line of a flow: ratio, band and liquidation price. */
export function BeforeAfter(props: {
  before: VaultState;
  /** null when the amount cannot be applied to the vault */
  after: VaultState | null;
  priceUsd: PriceInput;
}) {
  const describe = (p: VaultState | null) => {
    if (!p) return { ratio: NONE, band: NONE, liq: NONE };
    const hasDebt = p.unitCents > 0n;
    // SPEC §9: no debt gives an infinite ratio, shown N/A (SPEC §5) and without a band.
    const ratio = collateralRatio(p.btcSats, p.unitCents, props.priceUsd);
    const band = healthBand(ratio);
    return {
      ratio: formatHealth(ratio),
      band: hasDebt ? (band ? HEALTH_BAND_LABELS[band] : 'Liquidatable') : NONE,
      liq:
        hasDebt && p.btcSats > 0n
          ? formatUsdCents(liquidationThresholdCents(p.btcSats, p.unitCents))
          : NONE,
    };
  };
  const b = describe(props.before);
  const a = describe(props.after);
  return (
    <dl className="before-after" aria-label="Vault after this transaction">
      <div>
        <dt>Collateral ratio</dt>
        <dd>
          {b.ratio} → <strong>{a.ratio}</strong>
        </dd>
      </div>
      <div>
        <dt>Health</dt>
        <dd>
          {b.band} → <strong>{a.band}</strong>
        </dd>
      </div>
      <div>
        <dt>Liquidation price</dt>
        <dd>
          {b.liq} → <strong>{a.liq}</strong>
        </dd>
      </div>
    </dl>
  );
}
