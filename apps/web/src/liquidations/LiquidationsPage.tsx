import { useState } from 'react';
import { format } from 'date-fns';
import {
  centsToUnitString,
  formatUsdCents,
  satsToBtcString,
  type LiquidatedVaultDto,
} from '@unit/protocol';
import { useLiquidations } from '../api/liquidations';
import { usePosition } from '../api/position';
import { ReasonButton } from '../ui/ReasonButton';
import { Skeleton } from '../ui/Skeleton';
import { useWallet } from '../wallet';
import { RepossessDialog } from './RepossessDialog';

/** Liquidated vaults; any user with an active vault may repossess one (ARCHITECTURE: Liquidation). */
export function LiquidationsPage() {
  const list = useLiquidations();
  const wallet = useWallet();
  const position = usePosition();
  const [target, setTarget] = useState<LiquidatedVaultDto | null>(null);
  const canClaim = wallet.account != null && position.vault?.status === 'active';
  const reason = !wallet.account
    ? 'Connect a wallet first'
    : 'Repossessing needs an active vault of your own';
  return (
    <section className="card">
      <h1 className="card__title">Liquidated vaults</h1>
      {list.isPending ? (
        <div role="status" aria-label="Loading liquidations">
          <Skeleton height="2.5rem" />
          <Skeleton height="2.5rem" />
        </div>
      ) : list.isError ? (
        <p role="alert">Liquidated vaults could not be loaded.</p>
      ) : list.data.length === 0 ? (
        <p className="muted">No vault is in liquidation.</p>
      ) : (
        <table className="tx-table">
          <thead>
            <tr>
              <th scope="col">Vault</th>
              <th scope="col">Collateral</th>
              <th scope="col">Debt</th>
              <th scope="col" className="col-wide">
                Threshold
              </th>
              <th scope="col" className="col-wide">
                Liquidated
              </th>
              <th scope="col">
                <span className="sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((v) => (
              <tr key={v.vault_id}>
                <td>{v.name}</td>
                <td className="num">{satsToBtcString(v.btc_locked)} BTC</td>
                <td className="num">{centsToUnitString(v.unit_borrowed)} UNIT</td>
                <td className="col-wide num">{formatUsdCents(v.threshold_cents)}</td>
                <td className="col-wide">
                  {format(new Date(v.liquidated_at * 1000), 'MMM d, HH:mm')}
                </td>
                <td>
                  {v.status === 'repossessed' ? (
                    <span className="muted">Repossessed</span>
                  ) : (
                    <ReasonButton
                      enabled={canClaim}
                      reason={canClaim ? null : reason}
                      onClick={() => setTarget(v)}
                    >
                      Repossess
                    </ReasonButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <RepossessDialog target={target} position={position} onClose={() => setTarget(null)} />
    </section>
  );
}
