// Fee options, the fee sanity cap and operation-cost estimates (SPEC §3 Fee option, §7, §9). The
// vsize estimates follow the transaction layouts of docs/protocol.md input by input, output by output.
import {
  ACTION_SHAPES,
  stateRecordScriptBytes,
  type ShapeInput,
  type ShapeOutput,
} from './action-shapes';
import type { RecommendedFeesDto, VaultAction } from './api';
import {
  DEFAULT_FEE_RATE,
  FEE_CAP_USD,
  FEE_CAP_VBYTES,
  UNIT_POSTAGE_SATS,
  VAULT_MAX_ORACLE_COUNT,
  VIN_ALLOWANCE_VBYTES,
  type ConfigConstants,
} from './constants';
import { priceToCents, sats, type PriceInput, type Sats, type SatsInput } from './units';

export type FeeSpeed = 'slow' | 'medium' | 'fast';

export interface FeeOption {
  speed: FeeSpeed;
  /** sat/vB */
  fee: number;
  /** expected confirmation time in minutes */
  time: number;
  label: string;
}

export const FEE_LABELS: Record<FeeSpeed, string> = {
  slow: 'Slow ~60+ min',
  medium: 'Medium ~30 min',
  fast: 'Fast ~10 min',
};

/** SPEC §9: the default option is Fast. */
export const DEFAULT_FEE_SPEED: FeeSpeed = 'fast';

function usableRate(rate: number | undefined): number {
  return typeof rate === 'number' && Number.isFinite(rate) && rate > 0 ? rate : DEFAULT_FEE_RATE;
}

/** Slow (hourFee), Medium (halfHourFee), Fast (fastestFee); 1 sat/vB for any rate missing (SPEC §9). */
export function feeOptions(
  recommended: Partial<RecommendedFeesDto> | null | undefined,
): FeeOption[] {
  return [
    { speed: 'slow', fee: usableRate(recommended?.hourFee), time: 60, label: FEE_LABELS.slow },
    {
      speed: 'medium',
      fee: usableRate(recommended?.halfHourFee),
      time: 30,
      label: FEE_LABELS.medium,
    },
    { speed: 'fast', fee: usableRate(recommended?.fastestFee), time: 10, label: FEE_LABELS.fast },
  ];
}

/** The fee rate of the selected option, Fast by default, 1 sat/vB when none (SPEC §9). */
export function selectedFeeRate(
  options: readonly FeeOption[],
  speed: FeeSpeed | null | undefined,
): number {
  const chosen = options.find((o) => o.speed === (speed ?? DEFAULT_FEE_SPEED));
  return chosen ? chosen.fee : DEFAULT_FEE_RATE;
}

/**
 * SPEC §9: reduce the rate while 1000 vB at that rate cost more than 1000 USD. 1000 vB x rate sats
 * exceeds 1000 USD exactly when rate x price_cents > 1e10, so the largest allowed rate is
 * floor(1e10 / price_cents); never below 1 sat/vB. An unknown price leaves the rate as it is.
 */
export function capFeeRate(rate: number, priceUsd: PriceInput): number {
  const pc = priceToCents(priceUsd);
  const r = usableRate(rate);
  if (pc === null) return r;
  const capSatsTimesCents = BigInt(FEE_CAP_USD) * 100n * 100_000_000n; // USD -> cents, BTC -> sats
  const maxRate = Number(capSatsTimesCents / (pc * BigInt(FEE_CAP_VBYTES)));
  return Math.max(DEFAULT_FEE_RATE, Math.min(r, maxRate));
}

/** The fee options as offered: each rate capped by SPEC §9's 1000 USD per 1000 vB rule. */
export function cappedFeeOptions(
  recommended: Partial<RecommendedFeesDto> | null | undefined,
  priceUsd: PriceInput,
): FeeOption[] {
  return feeOptions(recommended).map((o) => ({ ...o, fee: capFeeRate(o.fee, priceUsd) }));
}

// ---- Weights (weight units; vbytes = ceil(weight / 4)) ----
const OUTPOINT_AND_SEQUENCE = 32 + 4 + 4;
/** A segwit input's non-witness part: outpoint, empty scriptSig length byte, sequence. */
const INPUT_BASE_WU = (OUTPOINT_AND_SEQUENCE + 1) * 4;
/** version, locktime, input and output counts; segwit marker and flag count once. */
const TX_OVERHEAD_WU = (4 + 4 + 1 + 1) * 4 + 2;

/** P2WPKH: witness of 2 items, a 72-byte DER signature and a 33-byte key. */
const P2WPKH_INPUT_WU = INPUT_BASE_WU + 1 + (1 + 72) + (1 + 33);
/** P2TR key path: one 64-byte Schnorr signature (SIGHASH_DEFAULT). */
const P2TR_KEY_INPUT_WU = INPUT_BASE_WU + 1 + (1 + 64);
/** Update leaf `<vault> CHECKSIGVERIFY <guard> CHECKSIG`: 68 bytes. */
const UPDATE_LEAF_BYTES = 1 + 32 + 1 + 1 + 32 + 1;
/** Liquidation leaf `HASH160 <20> EQUALVERIFY <guard> CHECKSIG`: 57 bytes. */
const LIQUIDATION_LEAF_BYTES = 1 + 1 + 20 + 1 + 1 + 32 + 1;
/** Control block of a two-leaf tree: leaf version/parity, internal key, one sibling hash. */
const CONTROL_BLOCK_BYTES = 1 + 32 + 32;
/** Vault spent through the update leaf: 2 signatures + script + control block. */
const VAULT_UPDATE_INPUT_WU =
  INPUT_BASE_WU + 1 + 2 * (1 + 64) + (1 + UPDATE_LEAF_BYTES) + (1 + CONTROL_BLOCK_BYTES);
/** Liquidated vault spent through the liquidation leaf: guardian signature + 32-byte secret. */
const VAULT_LIQUIDATION_INPUT_WU =
  INPUT_BASE_WU +
  1 +
  (1 + 64) +
  (1 + 32) +
  (1 + LIQUIDATION_LEAF_BYTES) +
  (1 + CONTROL_BLOCK_BYTES);

const P2TR_SCRIPT_BYTES = 34;
/** value (8) + script length (1) + script; user outputs are sized as P2TR (the larger of P2WPKH/P2TR). */
const P2TR_OUTPUT_WU = (8 + 1 + P2TR_SCRIPT_BYTES) * 4;
/** A state record output: value (8), script length (1), its script (stateRecordScriptBytes). */
const stateOutputWu = (
  output: 'state' | 'opening-state',
  committed: boolean,
  termed: boolean,
): number => (8 + 1 + stateRecordScriptBytes(output, committed, termed)) * 4;
/**
 * A layout 2 vault spent through its update leaf: the exit leaf sits beside the whole tree, so the
 * update leaf is one level deeper, one more 32-byte sibling in the control block.
 */
const TERMED_UPDATE_EXTRA_WU = 32;
/**
 * Its liquidation leaves by oracle count 1..3: beside the exit, then the update leaf, then the
 * settlement and liquidation leaves' subtree: 3, 4 and 4 siblings (layout 1 counts 1, 2 and 3).
 */
const TERMED_LIQUIDATION_SIBLINGS = [3, 4, 4] as const;
/**
 * Runestone `OP_RETURN OP_13 <payload>` with one edict and a pointer: body tag (1), rune block
 * (LEB128, 3 bytes up to block 2,097,151), rune tx (2), amount (6 bytes: up to 2^42 UNIT
 * hundredths), output (1), pointer tag and value (2). Sized at 16 bytes: an older 30 over-priced
 * every UNIT transaction (measured against the real PSBTs in packages/bitcoin's builders.test.ts).
 */
const RUNESTONE_OUTPUT_WU = (8 + 1 + 1 + 1 + 1 + 16) * 4;

export interface VsizeInput {
  action: VaultAction;
  /** P2WPKH payment inputs P of the user (docs/protocol.md). */
  paymentInputs: number;
  /** repay: the user's UNIT outputs spent (default 1). */
  unitInputs?: number;
  /** whether a BTC change output C is added (default true for actions with payment inputs). */
  change?: boolean;
  /**
   * withdraw: the byte length of the withdrawal's output script (22 P2WPKH, 23 P2SH, 34 P2TR;
   * default 34, the largest). Given, the withdraw's vsize is exact: its fee comes out of the vault,
   * so the vault's balance after it, shown before signing, must be the one the transaction makes.
   */
  withdrawalScriptBytes?: number;
  /**
   * repossess: the liquidated vault's oracle commitments (1..VAULT_MAX_ORACLE_COUNT, default 1).
   * With n of them, one guardian key, the deepest liquidation leaf has n sibling hashes, not one
   * (docs/protocol.md): the guardian network's vaults commit to up to three.
   */
  oracles?: number;
  /**
   * With the guardian network: the state record commits to the quote's price quorum, 32 bytes more
   * (docs/protocol.md, versions 3 and 4). Off mode (default false) keeps the records' sizes.
   */
  quorumCommitment?: boolean;
  /**
   * The new vault output is layout 2: its record carries the term, 40 bytes more (versions 5 to 8,
   * docs/protocol.md "Leaving without the guardians"). Every action of the app writes one.
   */
  term?: boolean;
  /**
   * The vault spent is layout 2: its update leaf one sibling hash deeper, its liquidation leaves two;
   * a layout 1 vault moving to layout 2 on this action is not (default false).
   */
  spentTermed?: boolean;
}

/**
 * A vault's oracle commitments, as its liquidation leaves count them: the threshold hashes it
 * commits to (the guardian network's up to three), clamped to 1..VAULT_MAX_ORACLE_COUNT; none known
 * (off mode: the server's single oracle) is one. estimateVsize's `oracles`, so a repossess of a
 * three-oracle vault is priced with its deepest liquidation leaf (3 sibling hashes, not 1).
 */
export function oracleCount(hashes: readonly unknown[] | number | null | undefined): number {
  const n = typeof hashes === 'number' ? hashes : (hashes?.length ?? 1);
  return Number.isFinite(n) ? Math.min(VAULT_MAX_ORACLE_COUNT, Math.max(1, Math.floor(n))) : 1;
}

/**
 * estimateVsize's layout 2 flags from /api/config: with a term configured every record carries it,
 * and the vault spent is counted as layout 2 (the larger; a layout 1 vault moves on its next action).
 */
export function termSizing(constants: Pick<ConfigConstants, 'vaultTerm'>): {
  term: boolean;
  spentTermed: boolean;
} {
  const termed = constants.vaultTerm !== undefined;
  return { term: termed, spentTermed: termed };
}

/** Estimated vsize of a vault transaction laid out as docs/protocol.md fixes it (action-shapes.ts). */
export function estimateVsize({
  action,
  paymentInputs,
  unitInputs = 1,
  change,
  withdrawalScriptBytes = P2TR_SCRIPT_BYTES,
  oracles = 1,
  quorumCommitment = false,
  term = false,
  spentTermed = false,
}: VsizeInput): number {
  const deeper = 32 * (oracleCount(oracles) - 1);
  const shape = ACTION_SHAPES[action];
  const inputWu: Record<ShapeInput, number> = {
    'vault-update': VAULT_UPDATE_INPUT_WU + (spentTermed ? TERMED_UPDATE_EXTRA_WU : 0),
    'vault-liquidation':
      VAULT_LIQUIDATION_INPUT_WU +
      (spentTermed ? 32 * (TERMED_LIQUIDATION_SIBLINGS[oracleCount(oracles) - 1]! - 1) : deeper),
    treasury: P2TR_KEY_INPUT_WU,
    unit: Math.max(1, unitInputs) * P2TR_KEY_INPUT_WU,
  };
  const outputWu: Record<ShapeOutput, number> = {
    p2tr: P2TR_OUTPUT_WU,
    runestone: RUNESTONE_OUTPUT_WU,
    state: stateOutputWu('state', quorumCommitment, term),
    'opening-state': stateOutputWu('opening-state', quorumCommitment, term),
    withdrawal: (8 + 1 + withdrawalScriptBytes) * 4,
  };
  const payments = Math.max(0, Math.floor(paymentInputs)) * P2WPKH_INPUT_WU;
  const withChange = change ?? shape.paysFromWallet;
  let weight = TX_OVERHEAD_WU + payments + (withChange ? P2TR_OUTPUT_WU : 0);
  for (const input of shape.inputs) weight += inputWu[input];
  for (const output of shape.outputs) weight += outputWu[output];
  return Math.ceil(weight / 4);
}

/** Actions whose transaction pays UNIT postage on the user's behalf (docs/protocol.md). */
export function postageOutputs(action: VaultAction): number {
  return ACTION_SHAPES[action].fundedPostage === null ? 0 : 1;
}

/**
 * The postage an action's payment inputs fund: on open and borrow the postage of the UNIT sent to
 * the account (its referral level's, missions.ts `accountPostageSats`); on repay the treasury's
 * postage on the UNIT sent back (the UNIT change keeps the postage its inputs carried).
 */
export function fundedPostageSats(
  action: VaultAction,
  accountPostage: SatsInput = UNIT_POSTAGE_SATS,
  treasuryPostage: SatsInput = UNIT_POSTAGE_SATS,
): Sats {
  const funded = ACTION_SHAPES[action].fundedPostage;
  if (funded === null) return 0n as Sats;
  return sats(funded === 'treasury' ? treasuryPostage : accountPostage);
}

/**
 * Payment inputs assumed when quoting an action before coin selection: a withdraw pays its fee from
 * the vault and spends none; every other action spends at least one (extra inputs are what the 350 vB
 * vin allowance is for). GET /api/quote and the web app's estimates use the same count.
 */
export function defaultPaymentInputs(action: VaultAction): number {
  return ACTION_SHAPES[action].paysFromWallet ? 1 : 0;
}

export interface OperationCostInput extends VsizeInput {
  /** sat/vB */
  feeRate: number;
  /** The postage of the account's own UNIT outputs (its referral level's); default SPEC §9's. */
  postageSats?: SatsInput;
  /** The postage of UNIT sent back to the treasury; default SPEC §9's. */
  treasuryPostageSats?: SatsInput;
}

/**
 * The network fee the action's transaction is expected to pay: estimated vsize x fee rate, rounded
 * up. This is what the drawers show as the estimated network cost and what a withdraw's preview takes
 * out of the vault; the 350 vB vin allowance of operationCostSats is a safety margin for maxima and
 * balance checks (SPEC §9), not a cost the user pays, so showing it doubled the figure.
 */
export function networkFeeSats(input: OperationCostInput): Sats {
  return BigInt(Math.ceil(estimateVsize(input) * usableRate(input.feeRate))) as Sats;
}

/**
 * Operation cost in sats: (vsize + 350 vB vin allowance) x fee rate, rounded up (SPEC §9), plus the
 * UNIT postage where the action sends UNIT to the user or the treasury.
 */
export function operationCostSats(input: OperationCostInput): Sats {
  const vsize = estimateVsize(input) + VIN_ALLOWANCE_VBYTES;
  const fee = Math.ceil(vsize * usableRate(input.feeRate));
  const postage = fundedPostageSats(input.action, input.postageSats, input.treasuryPostageSats);
  return (BigInt(fee) + postage) as Sats;
}
