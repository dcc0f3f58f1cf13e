import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  COLLATERAL_PERCENT,
  centsToUnitString,
  collateralRatio,
  formatHealth,
  ratioAtLeast,
  repossessState,
  satsToBtcString,
  selectedFeeRate,
  toUserMessage,
  type LiquidatedVaultDto,
  DEFAULT_FEE_SPEED,
  cappedFeeOptions,
  repossessionClaim,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import type { Position } from '../api/position';
import { Sheet } from '../ui/Sheet';
import { TxLink } from '../ui/TxLink';
import { useWallet } from '../wallet';
import { repossessVault } from './repossess';
import '../flows/flows.css';

const STEPS = ['Signature collection', 'Received by node', 'Validation', 'Submitting'] as const;

type Phase =
  | { kind: 'review' }
  | { kind: 'running'; step: number }
  | { kind: 'done'; txid: string }
  | { kind: 'error'; message: string };

/**
 * Repossess, reviewed before signing: what the claimant's vault takes on, the 15% tax, and the
 * ratio after, which must stay at 160% or the guardian refuses (ARCHITECTURE: Liquidation).
 */
export function RepossessDialog(props: {
  target: LiquidatedVaultDto | null;
  position: Position;
  onClose: () => void;
}) {
  const { target, position } = props;
  const config = useConfig();
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<Phase>({ kind: 'review' });
  const close = () => {
    if (phase.kind === 'running') return;
    setPhase({ kind: 'review' });
    props.onClose();
  };
  if (!target) return <Sheet open={false} onOpenChange={close} title="Repossess" />;

  const { takenSats, taxSats: tax } = repossessionClaim(target.btc_locked);
  const after = repossessState(
    { btcSats: position.sats, unitCents: position.debtCents },
    { btcSats: target.btc_locked, unitCents: target.unit_borrowed },
  );
  const ratioAfter = collateralRatio(after.btcSats, after.unitCents, position.priceUsd);
  const safe = ratioAtLeast(after.btcSats, after.unitCents, position.priceUsd, COLLATERAL_PERCENT);

  const start = () => {
    setPhase({ kind: 'running', step: 1 });
    // SPEC §9: the default speed (Fast), capped like every other flow's rate.
    const feeRate = selectedFeeRate(
      cappedFeeOptions(position.fees, position.priceUsd),
      DEFAULT_FEE_SPEED,
    );
    repossessVault(target, feeRate, (step) => setPhase({ kind: 'running', step }), {
      config,
      wallet,
    }).then(
      (ids) => {
        setPhase({ kind: 'done', txid: ids.txid });
        for (const key of ['liquidations', 'vault', 'vault-history', 'vault-points', 'balance'])
          void queryClient.invalidateQueries({ queryKey: [key] });
      },
      (error: unknown) => setPhase({ kind: 'error', message: toUserMessage(error) }),
    );
  };

  const row = (label: string, value: string) => (
    <div>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
  return (
    <Sheet
      open
      onOpenChange={(open) => !open && close()}
      title={`Repossess ${target.name}`}
      placement="modal"
    >
      {phase.kind === 'done' ? (
        <div className="flow-step flow-step--success">
          <p className="success-mark" aria-hidden="true">
            ✓
          </p>
          <p role="status">
            <strong>Liquidation claim submitted</strong>
          </p>
          <TxLink txid={phase.txid} />
          <footer className="flow-actions">
            <button type="button" className="btn btn--primary" onClick={close}>
              Close
            </button>
          </footer>
        </div>
      ) : (
        <div className="flow-step">
          <dl className="summary">
            {row('Collateral you take', `${satsToBtcString(takenSats)} BTC`)}
            {row('Debt you take on', `${centsToUnitString(target.unit_borrowed)} UNIT`)}
            {row('Repossession tax (15%)', `${satsToBtcString(tax)} BTC`)}
            {row('Your collateral ratio after', formatHealth(ratioAfter))}
          </dl>
          {phase.kind === 'running' && (
            <ol className="tracker" aria-label="Progress">
              {STEPS.map((label, i) => {
                const n = i + 1;
                const state = n < phase.step ? 'done' : n === phase.step ? 'active' : 'todo';
                return (
                  <li
                    key={label}
                    className={`tracker__step tracker__step--${state}`}
                    aria-current={state === 'active' ? 'step' : undefined}
                  >
                    <span className="tracker__dot" aria-hidden="true">
                      {state === 'done' ? '✓' : n}
                    </span>
                    {label}
                  </li>
                );
              })}
            </ol>
          )}
          {phase.kind === 'error' && (
            <p className="field-error" role="alert">
              {phase.message}
            </p>
          )}
          {!safe && (
            <p className="field-error" role="alert">
              Your vault would fall under {COLLATERAL_PERCENT}%: deposit BTC first.
            </p>
          )}
          <footer className="flow-actions">
            <button
              type="button"
              className="btn"
              onClick={close}
              disabled={phase.kind === 'running'}
            >
              Cancel
            </button>
            <button
              type="button"
              className="btn btn--primary"
              onClick={start}
              disabled={!safe || phase.kind === 'running'}
            >
              {phase.kind === 'running' ? 'Repossessing...' : 'Repossess'}
            </button>
          </footer>
        </div>
      )}
    </Sheet>
  );
}
