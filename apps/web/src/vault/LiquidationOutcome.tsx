import {
  centsToUnitString,
  formatHealth,
  formatUsdCents,
  satsToBtcString,
  type LiquidationOutcome as Outcome,
  type UnitCents,
  type VaultLiquidationDto,
} from '@unit/protocol';
import { useId } from 'react';
import { useFlows } from '../flows/FlowProvider';
import { TxLink } from '../ui/TxLink';

const WHEN = new Intl.DateTimeFormat('en-US', {
  month: 'long',
  day: 'numeric',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const when = (seconds: number) => WHEN.format(new Date(seconds * 1000));

/**
 * What happened to a liquidated vault, with figures and links: the price that liquidated it, its
 * collateral and debt then, the transactions; after a repossess, who claimed it, what the owner
 * keeps, and how to open a new vault; after its owner took it back by the exit leaf, no one having
 * repossessed it, when and by which transaction.
 */
export function LiquidationOutcome({
  outcome,
  record,
  walletUnitCents,
  offerNewVault = true,
}: {
  outcome: Outcome;
  /** the server's record: the exact oracle price and the claimant, once loaded */
  record: VaultLiquidationDto | null;
  walletUnitCents: UnitCents | null;
  /** false where the wallet already has its next vault (ClosedVaults) */
  offerNewVault?: boolean;
}) {
  const titleId = useId();
  // The record's price is exact to the cent; the history's is whole dollars.
  const priceCents = record ? BigInt(record.price_cents) : BigInt(outcome.oraclePriceUsd) * 100n;
  const price = formatUsdCents(priceCents);
  const threshold = formatUsdCents(outcome.thresholdCents);
  const debt = `${centsToUnitString(outcome.debtCents)} UNIT`;
  const collateral = `${satsToBtcString(outcome.collateralSats)} BTC`;
  const claim = outcome.claim;
  const claimant = record?.claimant ?? null;
  // The history's `e` record, or the server's record of the liquidation's end before it loads.
  const exitTxid =
    outcome.exit?.txid ?? (record?.status === 'exited' ? (record.claim_txid ?? null) : null);
  const exited = exitTxid !== null;

  return (
    <section className="card liquidation" aria-labelledby={titleId}>
      <h2 id={titleId} className="liquidation__title">
        {claim
          ? 'This vault was liquidated and repossessed'
          : exited
            ? 'This vault was liquidated, then taken back by its exit'
            : 'What happened to this vault'}
      </h2>
      <p>
        On {when(outcome.liquidatedAt)} the oracle price of BTC fell to <strong>{price}</strong>, at
        or under this vault&apos;s liquidation price of <strong>{threshold}</strong>. Its collateral
        ratio was {formatHealth(outcome.ratioAtLiquidation)}, at or under 135%, so the vault was
        liquidated.
      </p>
      <dl className="liquidation__figures num">
        <div>
          <dt>Liquidation price</dt>
          <dd>{threshold}</dd>
        </div>
        <div>
          <dt>BTC price then</dt>
          <dd>{price}</dd>
        </div>
        <div>
          <dt>Collateral then</dt>
          <dd>{collateral}</dd>
        </div>
        <div>
          <dt>Debt then</dt>
          <dd>{debt}</dd>
        </div>
        {claim && (
          <div>
            <dt>Repossessed</dt>
            <dd>{when(claim.at)}</dd>
          </div>
        )}
        {outcome.exit && (
          <div>
            <dt>Taken back by its exit</dt>
            <dd>{when(outcome.exit.at)}</dd>
          </div>
        )}
        {claim && (
          <div>
            <dt>Claimed by</dt>
            <dd>
              {claimant
                ? `${claimant.name || 'A vault'} (vault ${claimant.vault_tag})`
                : 'Another vault'}
            </dd>
          </div>
        )}
      </dl>
      <ul className="liquidation__links">
        {/* the liquidation has no transaction of its own: this is the output the claim spends,
            made by the vault's last transaction before it */}
        <li>
          {claim ? 'Vault output claimed' : exited ? 'Vault output' : 'Vault output being claimed'}{' '}
          (made by the vault&apos;s last transaction before the liquidation):{' '}
          <TxLink txid={outcome.vaultTxid} />
        </li>
        {exitTxid && (
          <li>
            Owner&apos;s exit: <TxLink txid={exitTxid} />
          </li>
        )}
        {claim && (
          <li>
            Repossession{claim.confirmed ? '' : ' (awaiting a block)'}: <TxLink txid={claim.txid} />
          </li>
        )}
      </ul>
      {claim ? (
        <>
          <h3 className="liquidation__subtitle">What you keep</h3>
          <p>
            The <strong>{debt}</strong> you borrowed are yours to keep: the debt went to the
            claimant with the collateral, so nothing is owed on this vault. The {collateral} of
            collateral is gone: {satsToBtcString(claim.claimantSats)} BTC to the claimant and{' '}
            {satsToBtcString(claim.taxSats)} BTC (15%) to the treasury.
            {walletUnitCents != null &&
              ` Your wallet holds ${centsToUnitString(walletUnitCents)} UNIT now.`}
          </p>
          {offerNewVault && <NewVault />}
        </>
      ) : exited ? (
        <>
          <h3 className="liquidation__subtitle">Where the collateral went</h3>
          <p>
            No one repossessed this vault before its exit height, so its owner&apos;s exit took it
            back: the vault key alone took the whole {collateral}, less the network fee, in
            transaction {exitTxid}. The {debt} of debt was not repaid, and the UNIT borrowed stays
            with its owner. Nothing is left in the vault and no one can repossess it any more.
          </p>
          {offerNewVault && <NewVault />}
        </>
      ) : (
        <>
          <h3 className="liquidation__subtitle">What happens next</h3>
          <p>
            Any other vault can now repossess this one: it takes on the {debt} of debt and 85% of
            the collateral; 15% goes to the treasury. The {debt} you borrowed stay yours.
          </p>
        </>
      )}
    </section>
  );
}

/**
 * docs/protocol.md, Vault keys: one live vault per key, and this vault is closed (repossessed or
 * taken back by its exit), so
 * this wallet may open a new one (keyMayOpenVault). The create flow runs with the wallet as it is;
 * this vault keeps its row, history and outcome under its own id.
 */
function NewVault() {
  const flows = useFlows();
  return (
    <div className="liquidation__next">
      <h3 className="liquidation__subtitle">Open a new vault</h3>
      <p>
        This vault is closed. You can open a new vault with this wallet; it starts with its own
        history, and this vault&apos;s record stays as it is.
      </p>
      <button type="button" className="btn btn--primary" onClick={() => flows.openFlow('create')}>
        Open a new vault
      </button>
    </div>
  );
}
