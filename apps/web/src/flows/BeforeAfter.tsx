import {
  collateralRatio,
  formatHealth,
  formatUsd,
  healthBand,
  liquidationPriceCents,
  type VaultPosition,
} from '../protocol-gaps';

/** The live "before -> after" line of a flow: ratio, band and liquidation price. */
export function BeforeAfter(props: {
  before: VaultPosition;
  after: VaultPosition;
  priceCents: bigint | null;
}) {
  const describe = (p: VaultPosition) => {
    const ratio = collateralRatio(p.sats, p.debtCents, props.priceCents);
    const liq = liquidationPriceCents(p.sats, p.debtCents);
    return {
      ratio: p.debtCents > 0n ? formatHealth(ratio) : 'N/A',
      band: p.debtCents > 0n ? (healthBand(ratio) ?? 'Liquidatable') : '—',
      liq: liq == null ? '—' : formatUsd(liq),
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
