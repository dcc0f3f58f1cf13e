// A vault's term (docs/protocol.md, "Leaving without the guardians"): every vault output of the
// current layout commits to two block heights. From `settleHeight` the guardians may settle a vault
// its owner left alone (debt repaid from collateral at the quorum's price with the liquidation tax,
// the rest to the owner); from `exitHeight = settleHeight + grace` the owner alone takes the whole
// vault. Every owner action writes a new output, so it renews both.
import { REPOSSESSION_TAX_PERCENT, SATS_PER_BTC } from './constants';
import { centsToUnitString, satsToBtcString } from './units';

/** Blocks a day at Bitcoin's ten-minute target. */
export const BLOCKS_PER_DAY = 144;
/**
 * The term: about a year of blocks after the vault's last action. Long enough that one action a
 * year keeps a vault open (a loan is not a deadline for an active borrower), short enough that a
 * vault whose guardians vanish is not held for longer than a year.
 */
export const VAULT_TERM_BLOCKS = 365 * BLOCKS_PER_DAY;
/**
 * The grace after the term before the owner's own exit opens: 30 days, in which a running network
 * settles the vault. Longer than any outage the guardians plan for, so the exit is only reached
 * when they are gone (Liquid's emergency keys wait 4,032 blocks for the same reason).
 */
export const VAULT_EXIT_GRACE_BLOCKS = 30 * BLOCKS_PER_DAY;
/** The devnet's term and grace: short enough that a test mines past both. */
export const DEVNET_VAULT_TERM_BLOCKS = 40;
export const DEVNET_VAULT_EXIT_GRACE_BLOCKS = 20;
/** Days before the term at which the owner is warned, in the app and on Telegram. */
export const TERM_WARNING_DAYS = [30, 7, 1] as const;
/** The largest height a CLTV leaf may name: below 500,000,000 a locktime is a block height. */
export const MAX_TERM_HEIGHT = 499_999_999;

/** The vault layouts: 1 has no term (update and liquidation leaves); 2 adds exit and settlement. */
export const VAULT_LAYOUT_UNTERMED = 1;
export const VAULT_LAYOUT_TERMED = 2;
export type VaultLayout = typeof VAULT_LAYOUT_UNTERMED | typeof VAULT_LAYOUT_TERMED;

export interface TermConfig {
  termBlocks: number;
  graceBlocks: number;
}

export const DEFAULT_TERM_CONFIG: TermConfig = {
  termBlocks: VAULT_TERM_BLOCKS,
  graceBlocks: VAULT_EXIT_GRACE_BLOCKS,
};
export const DEVNET_TERM_CONFIG: TermConfig = {
  termBlocks: DEVNET_VAULT_TERM_BLOCKS,
  graceBlocks: DEVNET_VAULT_EXIT_GRACE_BLOCKS,
};

/**
 * The term a network writes unless configured otherwise (VAULT_TERM_BLOCKS,
 * VAULT_TERM_GRACE_BLOCKS): the devnet's short one there, the year and its grace elsewhere.
 */
export function defaultTermConfig(network: string): TermConfig {
  return network === 'devnet' ? DEVNET_TERM_CONFIG : DEFAULT_TERM_CONFIG;
}

/**
 * The term from VAULT_TERM_BLOCKS and VAULT_TERM_GRACE_BLOCKS where set (whole blocks), else the
 * network's (defaultTermConfig). The app and every guardian read the same two settings.
 */
export function termConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  network: string,
): TermConfig {
  const fallback = defaultTermConfig(network);
  const read = (name: string, value: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return value;
    if (!/^\d{1,9}$/.test(raw)) throw new RangeError(`${name} must be a whole number of blocks`);
    return Number(raw);
  };
  return checkTermConfig({
    termBlocks: read('VAULT_TERM_BLOCKS', fallback.termBlocks),
    graceBlocks: read('VAULT_TERM_GRACE_BLOCKS', fallback.graceBlocks),
  });
}

/** The heights a vault output commits to. */
export interface VaultTerm {
  /** From this height the guardians' settlement leaf opens. */
  settleHeight: number;
  /** From this height the owner's exit leaf opens. */
  exitHeight: number;
}

function checkHeight(height: number, what: string): void {
  if (!Number.isInteger(height) || height < 1 || height > MAX_TERM_HEIGHT)
    throw new RangeError(`${what} must be a block height from 1 to ${MAX_TERM_HEIGHT}`);
}

/** Refuses a term or grace that is not a whole number of blocks of at least one. */
export function checkTermConfig(config: TermConfig): TermConfig {
  for (const [name, value] of Object.entries(config))
    if (!Number.isInteger(value) || value < 1 || value > 10 * VAULT_TERM_BLOCKS)
      throw new RangeError(
        `${name} must be a whole number of blocks from 1 to ${10 * VAULT_TERM_BLOCKS}`,
      );
  return config;
}

/**
 * The term of a vault output written by an action built at `tipHeight` (the chain's height when
 * the action is built): it opens `termBlocks` after the next block, the first the action can be in.
 */
export function vaultTermAt(
  tipHeight: number,
  config: TermConfig = DEFAULT_TERM_CONFIG,
): VaultTerm {
  checkTermConfig(config);
  const settleHeight = tipHeight + 1 + config.termBlocks;
  const term = { settleHeight, exitHeight: settleHeight + config.graceBlocks };
  checkHeight(term.settleHeight, 'the settlement height');
  checkHeight(term.exitHeight, 'the exit height');
  return term;
}

/** A term as the protocol allows it: both heights valid and the exit strictly after the settlement. */
export function checkVaultTerm(term: VaultTerm): VaultTerm {
  checkHeight(term.settleHeight, 'the settlement height');
  checkHeight(term.exitHeight, 'the exit height');
  if (term.exitHeight <= term.settleHeight)
    throw new RangeError('the exit height must come after the settlement height');
  return term;
}

/** Whether a transaction with this nLockTime may spend a leaf locked until `height` (CLTV by height). */
export function lockTimeReaches(lockTime: number, height: number): boolean {
  return Number.isInteger(lockTime) && lockTime <= MAX_TERM_HEIGHT && lockTime >= height;
}

/**
 * The blocks before the settlement height at which each warning of TERM_WARNING_DAYS is due: the
 * days in blocks at the year's term, scaled to a configured term (the devnet's 40 blocks warn 4
 * blocks and 1 block before), at least one block each.
 */
export function termWarningBlocks(
  config: TermConfig = DEFAULT_TERM_CONFIG,
): { days: number; blocks: number }[] {
  return TERM_WARNING_DAYS.map((days) => ({
    days,
    blocks: Math.max(1, Math.ceil((days * BLOCKS_PER_DAY * config.termBlocks) / VAULT_TERM_BLOCKS)),
  }));
}

/**
 * The warning due at `tipHeight` for a vault whose term opens at `settleHeight`: the smallest of
 * 30, 7 and 1 days (termWarningBlocks of the configured term) the remaining blocks are within, or
 * null (more than 30 days left, or past).
 */
export function termWarningDays(
  tipHeight: number,
  settleHeight: number,
  config: TermConfig = DEFAULT_TERM_CONFIG,
): number | null {
  const left = settleHeight - tipHeight;
  if (left <= 0) return null;
  const due = termWarningBlocks(config).filter((w) => left <= w.blocks);
  return due.length ? due[due.length - 1]!.days : null;
}

/** Where a vault's term stands at `tipHeight`. */
export type TermStage = 'open' | 'settlement' | 'exit';
export function termStage(tipHeight: number, term: VaultTerm): TermStage {
  // A leaf locked at h takes nLockTime >= h, and a block takes only nLockTime below its own
  // height: the first block that can hold the spend is h + 1, the next one once the tip is h.
  if (tipHeight >= term.exitHeight) return 'exit';
  if (tipHeight >= term.settleHeight) return 'settlement';
  return 'open';
}

/**
 * The highest fee rate, sat/vB, of a settlement at the term. Its fee comes out of the owner's rest,
 * chosen by the guardians and not by the owner, and nothing is urgent: the owner's exit opens only
 * after the grace, so a settlement can wait for a cheaper block. At most 50 sat/vB of its ~180 vB
 * (one script-path input, two outputs) is about 9,000 sats; when the network asks more, the
 * settlement waits rather than take more from the owner (the owner's own exit allows up to 1,000).
 */
export const SETTLEMENT_MAX_FEE_RATE = 50;

export interface TermSettlement {
  /** The collateral that repays the debt at the quorum's price, rounded up. */
  debtSats: bigint;
  /** The liquidation tax on it (REPOSSESSION_TAX_PERCENT), rounded down. */
  taxSats: bigint;
  /** What the treasury takes: debt and tax, at most the whole collateral. */
  treasurySats: bigint;
  /** What returns to the owner: the rest, less the transaction fee. */
  ownerSats: bigint;
}

/**
 * A settlement at term: the debt repaid from the collateral at `priceCents` (USD cents per BTC,
 * the quorum's price; UNIT at face value) with the liquidation tax, the rest less the fee to the
 * owner. Throws when the owner's part after the fee would be negative.
 */
export function termSettlement(args: {
  collateralSats: bigint;
  debtCents: bigint;
  priceCents: bigint;
  feeSats: bigint;
}): TermSettlement {
  const { collateralSats, debtCents, priceCents, feeSats } = args;
  if (priceCents <= 0n) throw new RangeError('a settlement needs a positive price');
  if (collateralSats < 0n || debtCents < 0n || feeSats < 0n)
    throw new RangeError('a settlement takes no negative amount');
  const debtSats = (debtCents * SATS_PER_BTC + priceCents - 1n) / priceCents;
  const taxSats = (debtSats * BigInt(REPOSSESSION_TAX_PERCENT)) / 100n;
  const treasurySats = debtSats + taxSats > collateralSats ? collateralSats : debtSats + taxSats;
  const ownerSats = collateralSats - treasurySats - feeSats;
  if (ownerSats < 0n)
    throw new RangeError('the collateral does not cover the settlement and its fee');
  return { debtSats, taxSats, treasurySats, ownerSats };
}

/**
 * How far the tip a request's term was computed from may be from the guardian's own tip when it
 * checks the term, either way. A flow lasts at most FLOW_TIMEOUT_MS (65 s), so a block found during
 * it moves the tip by one; two esploras or nodes a block or two apart in propagation add one or
 * two more. Three blocks cover both, and move a year's term by half an hour at most, nothing an
 * owner or the guardians could gain from.
 */
export const TERM_TIP_TOLERANCE_BLOCKS = 3;

/**
 * Why the term of a new vault output is not the one the protocol gives at the guardian's
 * `tipHeight` (vaultTermAt of a tip within TERM_TIP_TOLERANCE_BLOCKS of it, with exactly the
 * configured grace), or null when it is.
 */
export function termProblem(
  term: VaultTerm,
  tipHeight: number,
  config: TermConfig = DEFAULT_TERM_CONFIG,
): string | null {
  try {
    checkVaultTerm(term);
  } catch (error) {
    return (error as Error).message;
  }
  if (!Number.isInteger(tipHeight) || tipHeight < 0) return 'the chain tip is not a block height';
  const low = vaultTermAt(Math.max(0, tipHeight - TERM_TIP_TOLERANCE_BLOCKS), config).settleHeight;
  const high = vaultTermAt(tipHeight + TERM_TIP_TOLERANCE_BLOCKS, config).settleHeight;
  if (term.settleHeight < low || term.settleHeight > high)
    return `the term's settlement height ${term.settleHeight} is not the chain's term: from ${low} to ${high} at height ${tipHeight}`;
  if (term.exitHeight !== term.settleHeight + config.graceBlocks)
    return `the term's exit height must be ${config.graceBlocks} blocks after its settlement height`;
  return null;
}

/** What the owner reads before the term, in the app and on Telegram: what happens, what to do. */
export function termWarningText(args: { days: number; blocksLeft: number; settleHeight: number }): {
  title: string;
  body: string;
  whatToDo: string;
} {
  const { days, blocksLeft, settleHeight } = args;
  const when = days === 1 ? 'within a day' : `within ${days} days`;
  return {
    title: `Your vault reaches its term ${when}`,
    body: `In ${blocksLeft} ${blocksLeft === 1 ? 'block' : 'blocks'} (at block ${settleHeight}), the guardians settle a vault that has had no action: its debt is repaid from its collateral at the oracle's price with the ${REPOSSESSION_TAX_PERCENT}% liquidation tax, and the rest of its bitcoin returns to you.`,
    whatToDo:
      'Any action on the vault (a deposit, a withdrawal, a borrow or a repayment) renews its term; make one before then to keep it open.',
  };
}

/**
 * What the owner reads once the guardians settled the vault at its term (the dashboard and its
 * history): what it held, what was repaid and where the rest went, and what to do next.
 */
export function termSettledText(args: {
  /** the debt repaid, UNIT hundredths, and the collateral it was repaid from, sats */
  debtCents: bigint;
  collateralSats: bigint;
  /** the whole-dollar price the settlement used, when known */
  priceUsd: number | null;
}): { title: string; body: string; whatToDo: string } {
  const { debtCents, collateralSats, priceUsd } = args;
  const at = priceUsd ? `$${priceUsd.toLocaleString('en-US')}` : "the oracle's price";
  const debt =
    debtCents > 0n
      ? `its debt of ${centsToUnitString(debtCents)} UNIT was repaid from its collateral at ${at} with the ${REPOSSESSION_TAX_PERCENT}% liquidation tax, and `
      : '';
  return {
    title: 'The guardians settled this vault at its term',
    body: `No action renewed its term, so ${debt}the rest of its ${satsToBtcString(collateralSats)} BTC, less the network fee, was sent to your vault key's own address.`,
    whatToDo:
      'That bitcoin is yours: your wallet spends it with the key it signed the vault with. Open a new vault to borrow again.',
  };
}

/**
 * What the owner reads once the vault was left through its exit leaf (the dashboard and Telegram):
 * the vault is closed, its collateral went to the address the exit named, by which transaction,
 * and what became of the debt. Its history record `e` gives the figures.
 */
export function vaultExitedText(args: {
  /** what the vault held when it was left: its collateral, sats, and debt, UNIT hundredths */
  collateralSats: bigint;
  debtCents: bigint;
  /** the exit transaction's id */
  txid: string;
  /** the address its output paid, when it is a standard one */
  address: string | null;
}): { title: string; body: string; whatToDo: string } {
  const { collateralSats, debtCents, txid, address } = args;
  const to = address ? `the address ${address}` : 'the address the exit named';
  const debt =
    debtCents > 0n
      ? ` Its debt of ${centsToUnitString(debtCents)} UNIT was not repaid: the UNIT you borrowed stays with you, and nothing backs it any more.`
      : '';
  return {
    title: 'This vault was closed by its exit',
    body: `After its exit height, the vault key alone took the whole vault: its ${satsToBtcString(collateralSats)} BTC, less the network fee, went to ${to} in transaction ${txid}.${debt}`,
    whatToDo:
      'The vault holds nothing now and takes no action; the bitcoin is at that address. Open a new vault to borrow again.',
  };
}
