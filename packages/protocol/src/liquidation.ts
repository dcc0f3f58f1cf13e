// What happened to a liquidated vault, from its own history (SPEC §3 action codes `l` and `x`,
// §4 Liquidated state, and the owner's exit `e`: docs/protocol.md, "Leaving without the
// guardians"): the figures its owner is shown once the vault is liquidated.
import type { VaultDto, VaultHistoryRecordDto } from './api';
import { REPOSSESSION_TAX_PERCENT as TAX } from './constants';
import { collateralRatio } from './ratio';
import {
  centsToUnitString,
  sats,
  satsToBtcString,
  unitCents,
  type Sats,
  type SatsInput,
  type UnitCents,
  type UnitCentsInput,
} from './units';
import { repossessionClaim } from './vault';

/**
 * `pending` until a claimant repossesses it (`repossessed`), or until its owner takes it back
 * through the exit leaf once the chain reached its exit height, no one having repossessed it
 * (`exited`).
 */
export type LiquidationStage = 'pending' | 'repossessed' | 'exited';

export interface LiquidationOutcome {
  stage: LiquidationStage;
  /** unix seconds of the `l` record: when the oracle price reached the vault's threshold */
  liquidatedAt: number;
  /** the vault's liquidation price, USD cents (the `l` record's liquidation_threshold) */
  thresholdCents: bigint;
  /** the oracle price that liquidated it, whole USD (the `l` record's oracle_price) */
  oraclePriceUsd: number;
  /** the collateral locked and the debt owed at that moment */
  collateralSats: Sats;
  debtCents: UnitCents;
  /** the ratio at the oracle price: at or under 135% (SPEC §9) */
  ratioAtLiquidation: number;
  /** the vault output the liquidation opened to claimants (the `l` record's transaction) */
  vaultTxid: string;
  /** the repossession, once a claimant has spent that output (the `x` record) */
  claim: {
    at: number;
    txid: string;
    confirmed: boolean;
    /** collateral the claimant took (85%) and the treasury's tax (15%) */
    claimantSats: Sats;
    taxSats: Sats;
  } | null;
  /** the owner's exit that took the vault back before any claimant did (the `e` record) */
  exit: {
    at: number;
    txid: string;
    /** the exit's output 0: where the collateral went */
    utxoScript: string;
  } | null;
  /**
   * The borrowed UNIT is the owner's to keep: the debt moved to the claimant with the collateral,
   * so nothing is owed any more. What is lost is the collateral, unless the owner's exit took it
   * back.
   */
  keptUnitCents: UnitCents;
  lostSats: Sats;
}

/**
 * The outcome of a vault's liquidation from its history, or null when the history holds no `l`.
 * The latest `l` counts (a vault is liquidated once; a replayed history cannot make two).
 */
export function liquidationOutcome(
  records: readonly VaultHistoryRecordDto[],
): LiquidationOutcome | null {
  const byTime = [...records].sort((a, b) => a.timestamp - b.timestamp);
  const l = byTime.findLast((r) => r.action === 'l');
  if (!l) return null;
  const x = byTime.findLast((r) => r.action === 'x' && r.timestamp >= l.timestamp);
  const e = x ? undefined : byTime.findLast((r) => r.action === 'e' && r.timestamp >= l.timestamp);
  const collateralSats = sats(l.vault_amount);
  const debtCents = unitCents(l.amount_borrowed);
  const split = x ? repossessionClaim(x.btc_amt) : null;
  return {
    stage: x ? 'repossessed' : e ? 'exited' : 'pending',
    liquidatedAt: l.timestamp,
    thresholdCents: BigInt(l.liquidation_threshold ?? 0),
    oraclePriceUsd: l.oracle_price,
    collateralSats,
    debtCents,
    ratioAtLiquidation: collateralRatio(collateralSats, debtCents, l.oracle_price),
    vaultTxid: l.transaction_id,
    claim:
      x && split
        ? {
            at: x.timestamp,
            txid: x.transaction_id,
            confirmed: x.confirmed,
            claimantSats: split.takenSats,
            taxSats: split.taxSats,
          }
        : null,
    exit: e ? { at: e.timestamp, txid: e.transaction_id, utxoScript: e.utxo_script } : null,
    keptUnitCents: debtCents,
    lostSats: e ? sats(0) : collateralSats,
  };
}

/**
 * Where a vault stands (SPEC §4 Liquidated state): 'pending' from the moment it is liquidated until
 * a claimant repossesses it, then 'repossessed' for good; or 'exited' for good once its owner took
 * it back through the exit leaf, no one having repossessed it. The 'Vault in Liquidation' modal and
 * the 'Liquidating...' badge belong to 'pending' only. Any source that knows of the end wins.
 */
export function liquidationStage(input: {
  /** SPEC §4's liquidated state: listed, ratio at or under 135, or the session marker */
  liquidated: boolean;
  vaultStatus: VaultDto['status'] | null;
  /** the vault's status in the liquidated list, null when not listed */
  listedStatus: 'liquidated' | 'repossessed' | 'exited' | null;
  outcome: LiquidationOutcome | null;
}): LiquidationStage | 'none' {
  if (
    input.vaultStatus === 'repossessed' ||
    input.listedStatus === 'repossessed' ||
    input.outcome?.stage === 'repossessed'
  )
    return 'repossessed';
  const liquidated =
    input.liquidated ||
    input.vaultStatus === 'liquidated' ||
    input.listedStatus != null ||
    input.outcome != null;
  // A vault left by its exit that was never liquidated is no liquidation's business.
  if (
    input.listedStatus === 'exited' ||
    input.outcome?.stage === 'exited' ||
    (liquidated && input.vaultStatus === 'exited')
  )
    return 'exited';
  return liquidated ? 'pending' : 'none';
}

/**
 * docs/protocol.md, Vault keys: may a key whose latest vault has this status open a new vault?
 * Only once that vault is closed: liquidated AND repossessed, settled or exited. An active vault is the key's vault.
 * A liquidated vault not yet claimed still blocks: its output is still on chain under this key
 * waiting for a claimant, the owner's page must keep showing that pending liquidation (the lookup
 * by key answers the newest vault, which would hide it), and the key's requests and locks would
 * otherwise name two live vaults at once. Once repossessed nothing of the old vault remains to
 * spend, and the new vault's script commits to a fresh threshold and stamp, so its output is
 * distinct from anything the old one had.
 */
export function keyMayOpenVault(latest: Pick<VaultDto, 'status'> | null): boolean {
  // A vault settled at its term, or left by its owner's exit, holds nothing more either: its
  // output is spent.
  return (
    latest === null ||
    latest.status === 'repossessed' ||
    latest.status === 'settled' ||
    latest.status === 'exited'
  );
}

/** What the dashboard's cards say of a liquidated vault: no debt owed, and the collateral's fate. */
export interface LiquidatedCards {
  /** the UNIT loan balance card's figure: nothing is owed once the vault is liquidated */
  owedCents: UnitCents;
  /** the BTC card's figure: still locked until a claimant spends it, nothing once repossessed */
  collateralSats: Sats;
  /** under the BTC card's figure: where the collateral goes or went */
  collateralNote: string;
  /** under the UNIT card's figure: why nothing is owed */
  debtNote: string;
  /** under the liquidation price card's figure, in place of the distance to it */
  priceNote: string;
}

/**
 * The cards of a liquidated vault (docs/protocol.md, repossess): the debt moves to the claimant with
 * 85% of the collateral and 15% goes to the treasury, so the owner owes nothing and keeps the UNIT
 * borrowed; a vault its owner took back by the exit before any claimant holds nothing either. The figures come from the `l` record when the history has it, else from the vault as
 * it stands (SPEC §4's liquidated state can come before the guardian records the `l`).
 */
export function liquidatedCards(
  stage: LiquidationStage,
  outcome: LiquidationOutcome | null,
  vault: { sats: SatsInput; debtCents: UnitCentsInput },
): LiquidatedCards {
  const collateral = outcome?.collateralSats ?? sats(vault.sats);
  const debt = outcome?.debtCents ?? unitCents(vault.debtCents);
  const split = outcome?.claim
    ? { takenSats: outcome.claim.claimantSats, taxSats: outcome.claim.taxSats }
    : repossessionClaim(collateral);
  const btc = (value: bigint) => `${satsToBtcString(value)} BTC`;
  const debtText = `${centsToUnitString(debt)} UNIT`;
  if (stage === 'exited') {
    const by = outcome?.exit ? `, in transaction ${outcome.exit.txid}` : '';
    return {
      owedCents: unitCents(0),
      collateralSats: sats(0),
      collateralNote: `Taken back by its owner's exit: no one repossessed the vault before its exit height, so the vault key alone took its ${btc(collateral)}, less the network fee${by}.`,
      debtNote:
        debt > 0n
          ? `Nothing is owed on this closed vault: its ${debtText} debt was not repaid, and the UNIT you borrowed stays with you.`
          : 'Nothing is owed on this closed vault.',
      priceNote: 'The vault is closed: it has no liquidation price any more.',
    };
  }
  if (stage === 'repossessed') {
    const went =
      collateral > 0n
        ? `${btc(split.takenSats)} to the claimant and ${btc(split.taxSats)} (${TAX}%) to the treasury`
        : `to the claimant, less ${TAX}% to the treasury`;
    return {
      owedCents: unitCents(0),
      collateralSats: sats(0),
      collateralNote: `Repossessed: the collateral went ${went}.`,
      debtNote:
        debt > 0n
          ? `Nothing is owed: the ${debtText} debt went to the claimant with the collateral, and the UNIT you borrowed is yours to keep.`
          : 'Nothing is owed: the debt went to the claimant with the collateral, and the UNIT you borrowed is yours to keep.',
      priceNote: 'The vault is closed: it has no liquidation price any more.',
    };
  }
  return {
    owedCents: unitCents(0),
    collateralSats: collateral,
    collateralNote: `Liquidated: this collateral is no longer yours. Whoever repossesses the vault takes ${btc(split.takenSats)} (${100 - TAX}%) and the treasury ${btc(split.taxSats)} (${TAX}%).`,
    debtNote: `Nothing is owed: the ${debtText} debt goes to whoever repossesses the vault, and the UNIT you borrowed is yours to keep.`,
    priceNote:
      'The BTC price reached this liquidation price, so the vault was liquidated. A deposit or a repayment can no longer save it.',
  };
}
