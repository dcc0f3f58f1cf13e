// Input rules (SPEC §5) with the messages quoted exactly. Every validator answers the message to show
// or null when the input is acceptable.
import {
  MIN_BTC_SATS,
  TESTNET_ADDRESS_MAX_LENGTH,
  TESTNET_ADDRESS_MIN_LENGTH,
  VAULT_NAME_MAX_LENGTH,
} from './constants';
import { ERROR_MESSAGES } from './errors';
import {
  centsToUnitString,
  isKnownPrice,
  sats,
  satsToBtcString,
  unitCents,
  type PriceInput,
  type SatsInput,
  type UnitCentsInput,
} from './units';

export const VALIDATION_MESSAGES = {
  vaultNameTooLong: 'Use a maximum of 20 characters.',
  notEnoughBitcoin: 'Not Enough Bitcoin',
  notEnoughUsd: 'Not Enough USD',
  noPrice: ERROR_MESSAGES.noPrice,
} as const;

/** 'The lowest accepted amount is {min} BTC' */
export function minimumAmountMessage(minSats: SatsInput): string {
  return `The lowest accepted amount is ${satsToBtcString(minSats)} BTC`;
}

/** 'Maximum value cannot exceed {n} UNIT' */
export function maximumUnitMessage(maxCents: UnitCentsInput): string {
  return `Maximum value cannot exceed ${centsToUnitString(maxCents)} UNIT`;
}

/** 'The transaction costs {x}, but you only have {y} in your wallet' (amounts in BTC). */
export function transactionCostMessage(costSats: SatsInput, walletSats: SatsInput): string {
  return `The transaction costs ${satsToBtcString(costSats)} BTC, but you only have ${satsToBtcString(walletSats)} BTC in your wallet`;
}

/**
 * SPEC §5: keep only digits and one decimal point, at most `decimals` decimals (BTC 8, UNIT and USD
 * 2) and at most `intDigits` integer digits. Extra characters are dropped, not rejected, so typing or
 * pasting '1,000.123' into a UNIT field gives '1000.12'.
 */
export function sanitizeAmountInput(
  raw: string,
  { decimals, intDigits }: { decimals: number; intDigits: number },
): string {
  let int = '';
  let frac = '';
  let seenPoint = false;
  for (const ch of raw) {
    if (ch >= '0' && ch <= '9') {
      if (seenPoint) {
        if (frac.length < decimals) frac += ch;
      } else if (int.length < intDigits) {
        int += ch;
      }
    } else if (ch === '.' && !seenPoint && decimals > 0) {
      seenPoint = true;
    }
  }
  // A leading zero run collapses to one digit ('007' -> '7') but '0.5' keeps its zero.
  int = int.replace(/^0+(?=\d)/, '');
  if (seenPoint) return `${int || '0'}.${frac}`;
  return int;
}

export function validateVaultName(name: string): string | null {
  return [...name].length > VAULT_NAME_MAX_LENGTH ? VALIDATION_MESSAGES.vaultNameTooLong : null;
}

/** SPEC §5: the name is required in step 1; Enter advances when there is no error. */
export function canContinueWithVaultName(name: string): boolean {
  return name.trim().length > 0 && validateVaultName(name) === null;
}

/** The 'n/20' counter under the name field. */
export function vaultNameCounter(name: string): string {
  return `${[...name].length}/${VAULT_NAME_MAX_LENGTH}`;
}

export interface BtcAmountInput {
  amountSats: SatsInput;
  maxSats: SatsInput;
  minSats?: SatsInput;
  /** Which field the user types in: the BTC field or its USD equivalent (SPEC §5). */
  currency?: 'BTC' | 'USD';
}

/** SPEC §5 BTC amount: at least the minimum, not above the available balance. An empty (0) amount has no error. */
export function validateBtcAmount({
  amountSats,
  maxSats,
  minSats = MIN_BTC_SATS,
  currency = 'BTC',
}: BtcAmountInput): string | null {
  const amount = sats(amountSats);
  if (amount <= 0n) return null;
  if (amount > sats(maxSats)) {
    return currency === 'USD'
      ? VALIDATION_MESSAGES.notEnoughUsd
      : VALIDATION_MESSAGES.notEnoughBitcoin;
  }
  if (amount < sats(minSats)) return minimumAmountMessage(minSats);
  return null;
}

/** SPEC §5 UNIT amount: not above the maximum. */
export function validateUnitAmount({
  amountCents,
  maxCents,
}: {
  amountCents: UnitCentsInput;
  maxCents: UnitCentsInput;
}): string | null {
  return unitCents(amountCents) > unitCents(maxCents) ? maximumUnitMessage(maxCents) : null;
}

/** SPEC §5: borrow and repay are blocked when the wallet cannot pay the operation cost. */
export function validateOperationCost({
  walletSats,
  costSats,
}: {
  walletSats: SatsInput;
  costSats: SatsInput;
}): string | null {
  return sats(walletSats) < sats(costSats) ? transactionCostMessage(costSats, walletSats) : null;
}

export type CreateVaultProblem = 'no_wallet' | 'no_btc' | 'no_unit' | 'no_price';

export interface CreateVaultCheck {
  walletConnected: boolean;
  btcSats: SatsInput;
  unitCents: UnitCentsInput;
  priceUsd: PriceInput;
}

/**
 * SPEC §5: creating a vault requires a connected wallet, BTC > 0, UNIT > 0 and a bitcoin price. Only
 * the price has a message in the spec ('Can not fetch bitcoin price'); the others disable the button.
 */
export function validateCreateVault(
  input: CreateVaultCheck,
): { ok: true } | { ok: false; problem: CreateVaultProblem; message: string | null } {
  if (!input.walletConnected) return { ok: false, problem: 'no_wallet', message: null };
  if (sats(input.btcSats) <= 0n) return { ok: false, problem: 'no_btc', message: null };
  if (unitCents(input.unitCents) <= 0n) return { ok: false, problem: 'no_unit', message: null };
  if (!isKnownPrice(input.priceUsd))
    return { ok: false, problem: 'no_price', message: VALIDATION_MESSAGES.noPrice };
  return { ok: true };
}

// bech32 data characters (BIP173): no 1, b, i, o.
const TESTNET_ADDRESS = new RegExp(
  `^tb1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{${TESTNET_ADDRESS_MIN_LENGTH - 3},${TESTNET_ADDRESS_MAX_LENGTH - 3}}$`,
);

/** SPEC §5: a tb1 bech32 address of 39 to 59 characters (all lower or all upper case, as bech32 allows). */
export function isTestnetAddress(address: string): boolean {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
  return TESTNET_ADDRESS.test(address.toLowerCase());
}
