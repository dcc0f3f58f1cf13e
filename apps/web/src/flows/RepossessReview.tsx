import { useState } from 'react';
import {
  CONTENT,
  DEFAULT_FEE_SPEED,
  cappedFeeOptions,
  centsToUnitString,
  defaultPaymentInputs,
  formatHealth,
  networkFeeSats,
  repossessFigures,
  selectedFeeRate,
  type FeeSpeed,
  termSizing,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { usePosition } from '../api/position';
import { formatBtcUsd } from '../ui/format';
import type { FlowDecl, FlowTarget } from './declarations';
import type { FlowInput } from './flow-types';
import { FeeSelector } from './FeeSelector';
import { BeforeAfter } from './BeforeAfter';
import type { FlowPreview } from './preview';

const COPY = CONTENT.repossess;

/**
 * The repossess flow's first step: what the claimant's vault takes on (the liquidated collateral
 * less the 15% tax, and its debt) and its ratio after, which must stay at 160% or the guardian
 * refuses (ARCHITECTURE.md, Liquidation). The figures come from repossessFigures.
 */
export function RepossessReview(props: {
  decl: FlowDecl;
  target: Extract<FlowTarget, { kind: 'repossess' }>;
  onCancel(): void;
  onStart(input: FlowInput, preview: FlowPreview): void;
}) {
  const position = usePosition();
  const config = useConfig();
  const [fee, setFee] = useState<FeeSpeed>(DEFAULT_FEE_SPEED);
  const { vault } = props.target;
  const before = { btcSats: position.sats, unitCents: position.debtCents };
  const figures = repossessFigures(
    before,
    { btcSats: vault.btc_locked, unitCents: vault.unit_borrowed },
    position.priceUsd,
  );
  // SPEC §9: each option's rate is capped so 1000 vB never cost more than 1000 USD.
  const options = cappedFeeOptions(position.fees, position.priceUsd);
  const feeRate = selectedFeeRate(options, fee);
  // The network cost the claimant's wallet pays, as every drawer says it, with the
  // liquidated vault's deepest liquidation leaf: a guardian-network vault commits to up to three.
  const networkFee = networkFeeSats({
    action: 'repossess',
    paymentInputs: defaultPaymentInputs('repossess'),
    oracles: vault.oracles,
    feeRate,
    quorumCommitment: config.constants.priceQuorum === true,
    ...termSizing(config.constants),
  });
  const step = props.decl.steps[0]!;
  const row = (label: string, value: string) => (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
  return (
    <div className="flow-step">
      <p className="muted">{vault.name}</p>
      <dl className="summary">
        {row(COPY.collateralTaken, formatBtcUsd(figures.takenSats, position.priceUsd))}
        {row(COPY.debtTaken, `${centsToUnitString(figures.debtCents)} UNIT`)}
        {row(COPY.tax, formatBtcUsd(figures.taxSats, position.priceUsd))}
        {row(COPY.ratioAfter, formatHealth(figures.ratioAfter))}
      </dl>
      <FeeSelector options={options} value={fee} onChange={setFee} />
      <p className="flow-costs muted" data-testid="network-fee">
        {CONTENT.reading.repossess.networkCost}: {formatBtcUsd(networkFee, position.priceUsd)}
      </p>
      <BeforeAfter before={before} after={figures.after} priceUsd={position.priceUsd} />
      {!figures.safe && (
        <p className="field-error" role="alert">
          {COPY.unsafe}
        </p>
      )}
      <footer className="flow-actions">
        <button type="button" className="btn" onClick={props.onCancel}>
          {step.secondary}
        </button>
        <button
          type="button"
          className="btn btn--primary"
          disabled={!figures.safe}
          onClick={() =>
            props.onStart(
              {
                name: '',
                sats: figures.takenSats,
                cents: figures.debtCents,
                feeRate,
                target: props.target,
              },
              { before, after: figures.after, priceUsd: position.priceUsd },
            )
          }
        >
          {step.primary}
        </button>
      </footer>
    </div>
  );
}
