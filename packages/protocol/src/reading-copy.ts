// Copy the borrower reads on the dashboard's cards and in the drawers that SPEC.md does not quote
// (what will happen and what has happened, at a glance). SPEC texts stay in content.ts.
import type { ActionCode } from './api';
import { HEALTH_BAND_RANGES } from './ratio';
import { LIQUIDATION_THRESHOLD_PERCENT } from './constants';

/** A pending transaction as its after-state's label names it ('After the pending deposit'). */
const PENDING_NOUNS: Record<ActionCode, string> = {
  o: 'vault opening',
  b: 'borrow',
  d: 'deposit',
  r: 'repayment',
  w: 'withdrawal',
  l: 'liquidation',
  x: 'claim',
  s: 'settlement at the term',
  e: "owner's exit",
};

export const READING_COPY = {
  withdraw: {
    /** the drawer's fee line: the fee is taken from the vault, on top of the amount withdrawn */
    feeFromVault: (btc: string, usd: string | null) =>
      `Network fee paid from the vault: ${btc} BTC${usd ? ` (${usd})` : ''}`,
    /** why the fee is the vault's: the amount typed is the amount that arrives */
    exactAmount:
      'You receive exactly the amount you enter; the network fee comes out of the vault on top of it, so your wallet needs no BTC to pay it.',
    upTo: (btc: string) => `Up to ${btc} BTC`,
  },
  /** a fee shown beside its USD value */
  networkCost: (btc: string, usd: string | null) =>
    `Estimated network cost: ${btc} BTC${usd ? ` (${usd})` : ''}`,
  /** warned before a result in the Risky band is confirmed, in the band's colour */
  riskyWarning: (ratio: string) =>
    `This leaves your vault at ${ratio}, in the Risky band (${HEALTH_BAND_RANGES.risky}). A small fall in the BTC price would take it to ${LIQUIDATION_THRESHOLD_PERCENT}%, where it is liquidated and its collateral is lost.`,
  pending: {
    /** a card's figure while its transaction waits for a block */
    label: 'Pending',
    /** the state after a pending transaction, apart from the confirmed figures and named */
    after: (action: ActionCode | null, figure: string) =>
      `After the pending ${action ? PENDING_NOUNS[action] : 'transaction'}: ${figure}`,
    /** the liquidation card's after-state: its price and its distance, one state */
    liquidation: (price: string, distance: string | null) =>
      distance ? `${price}, ${distance}` : price,
  },
  liquidationPrice: {
    current: 'BTC price now',
    distance: 'Distance to liquidation',
    /** '12.5% ($11,875.00) above the liquidation price' */
    above: (percent: string, usd: string) => `${percent} (${usd}) above`,
    below: 'At or under the liquidation price',
  },
  unitBar: {
    label: 'UNIT in your wallet against your debt',
    covered: 'Your wallet holds enough UNIT to repay the whole debt.',
    short: (missing: string) => `Your wallet is ${missing} short of repaying the whole debt.`,
    noDebt: 'No debt to repay.',
  },
  /** the phone gauge's info sheet: one sentence per band, and the liquidation line */
  gaugeBands: {
    risky: `Risky (${HEALTH_BAND_RANGES.risky}): a small fall in the BTC price can take the vault to its liquidation line; deposit BTC or repay UNIT to move up.`,
    moderate: `Moderate (${HEALTH_BAND_RANGES.moderate}): the vault is safe for now, with some room before Risky; a fall in the BTC price moves it down.`,
    healthy: `Healthy (${HEALTH_BAND_RANGES.healthy}): the vault can take a large fall in the BTC price before it is at risk.`,
    line: `Liquidation line (${LIQUIDATION_THRESHOLD_PERCENT}%): at or under it the vault is liquidated; its collateral goes to whoever repossesses it and you keep the UNIT you borrowed.`,
  },
  liquidationModal: {
    /** after SPEC §2's sentence: why, what happens next and what the owner can do */
    disabled: 'A deposit or a repayment can no longer save this vault.',
    next: 'What happens next: another vault repossesses this one, taking on its debt and 85% of its collateral; 15% goes to the treasury.',
    canDo:
      'What you can do: keep the UNIT you borrowed, as nothing is owed on this vault any more, and once it is repossessed open a new vault with this wallet.',
  },
  repossess: {
    networkCost: 'Estimated network cost',
  },
  welcome: {
    /**
     * Who must sign for the vault's bitcoin to move (GET /api/network): a t-of-n guardian network
     * co-signs with t of its n guardians, a server signing alone is one guardian; unknown until
     * read, said without a count.
     */
    lockBtc: (network: { enabled: boolean; threshold: number; size: number } | null) =>
      `Your bitcoin sits in a vault on chain that moves only with your signature and ${
        network == null
          ? "the guardians' co-signature"
          : network.enabled && network.size > 1
            ? `the co-signature of ${network.threshold} of the ${network.size} guardians`
            : "the guardian's"
      }.`,
  },
  createSuccess: {
    summary: 'What was created',
    name: 'Vault',
    deposited: 'Collateral',
    borrowed: 'Borrowed',
    ratio: 'Collateral ratio',
    liquidationPrice: 'Liquidation price',
  },
} as const;
