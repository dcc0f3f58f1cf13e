import { format } from 'date-fns';
import { centsToUnitString, CONTENT, formatUsdCents, satsToBtcString } from '@unit/protocol';
import { useLiquidations } from '../api/liquidations';
import { usePosition } from '../api/position';
import { useFlows } from '../flows/FlowProvider';
import { ReasonButton } from '../ui/ReasonButton';
import { Skeleton } from '../ui/Skeleton';
import { useWallet } from '../wallet';
import './liquidations.css';

/**
 * Liquidated vaults; any user with an active vault may repossess one (ARCHITECTURE: Liquidation).
 * Repossess opens the repossess flow in the one drawer: review, tracker, pending entry, banner.
 */
export function LiquidationsPage() {
  const list = useLiquidations();
  const wallet = useWallet();
  const position = usePosition();
  const flows = useFlows();
  const canClaim = wallet.account != null && position.vault?.status === 'active';
  const reason = !wallet.account
    ? 'Connect a wallet first'
    : 'Repossessing needs an active vault of your own';
  return (
    <section className="card liquidations">
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
        // Explicit roles: under 640 px the rows are laid out as cards (display: block), which would
        // otherwise drop the table semantics in Chromium.
        <table className="tx-table liquidations__table" role="table">
          <thead role="rowgroup">
            <tr role="row">
              <th scope="col" role="columnheader">
                Vault
              </th>
              <th scope="col" role="columnheader">
                Collateral
              </th>
              <th scope="col" role="columnheader">
                Debt
              </th>
              <th scope="col" role="columnheader">
                Threshold
              </th>
              <th scope="col" role="columnheader">
                Liquidated
              </th>
              <th scope="col" role="columnheader">
                <span className="sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {list.data.map((v) => (
              <tr key={v.vault_id} role="row">
                <td role="cell" className="liquidations__name">
                  {v.name}
                </td>
                <td role="cell" className="num" data-label="Collateral">
                  {satsToBtcString(v.btc_locked)} BTC
                </td>
                <td role="cell" className="num" data-label="Debt">
                  {centsToUnitString(v.unit_borrowed)} UNIT
                </td>
                <td role="cell" className="num" data-label="Threshold">
                  {formatUsdCents(v.threshold_cents)}
                </td>
                <td role="cell" data-label="Liquidated">
                  {format(new Date(v.liquidated_at * 1000), 'MMM d, HH:mm')}
                </td>
                <td role="cell" className="liquidations__action">
                  {v.status === 'repossessed' ? (
                    <span className="muted">Repossessed</span>
                  ) : v.status === 'exited' ? (
                    // No one claimed it before its exit height: its owner took it back.
                    <span className="muted">Taken back by its owner</span>
                  ) : (
                    <ReasonButton
                      enabled={canClaim && !flows.activeAction}
                      reason={canClaim ? null : reason}
                      onClick={() => flows.openFlow('repossess', { kind: 'repossess', vault: v })}
                    >
                      {CONTENT.repossess.button}
                    </ReasonButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
