// The SPEC-level facts of each vault action, once: its state-record letter, what the user's amounts
// move, which SPEC rules it is held to, the postage it funds, what it reserves, and the kinds of its
// fixed inputs and outputs (for fee estimates before any PSBT exists). packages/bitcoin's
// `actions/` declarations build on these with the transaction itself; every branch that used to
// name an action (fees.ts, vault.ts, the guardian's rules) reads a field here instead.
import type { ActionCode, VaultAction } from './api';

/** Input kinds, as fees.ts weighs them. `unit`: the wallet's UNIT outputs a repay spends. */
export type ShapeInput = 'vault-update' | 'vault-liquidation' | 'treasury' | 'unit';
/**
 * Output kinds: a P2TR-sized output, the runestone, the state record, or the withdrawal.
 * 'opening-state': an opening's state record, which also carries the vault key (version 2). Either
 * record is 32 bytes longer with the guardian network (stateRecordScriptBytes).
 */
export type ShapeOutput = 'p2tr' | 'runestone' | 'state' | 'opening-state' | 'withdrawal';

export interface ActionShape {
  /** The state record's action letter (docs/protocol.md, The state record). */
  code: Exclude<ActionCode, 'l'>;
  /**
   * What the vault does: an open creates it, a repossess updates the claimant's and claims a
   * liquidated one, every other action updates the requester's own.
   */
  vault: 'creates' | 'updates' | 'claims';
  /** Sign of what the user's BTC and UNIT amounts do to the vault (applyAction). */
  btc: 1 | -1 | 0;
  unit: 1 | -1 | 0;
  /** SPEC §3: the BTC moved must be at least MIN_BTC_SATS. */
  minBtc: boolean;
  /** ARCHITECTURE.md: the vault after it must keep COLLATERAL_PERCENT at the oracle price. */
  keepsRatio: boolean;
  /** Whose postage the payment inputs fund (fees.ts fundedPostageSats); null: none. */
  fundedPostage: 'account' | 'treasury' | null;
  /** Whether its UNIT outputs to the wallet carry the account's referral-level postage. */
  accountPostage: boolean;
  /** unit.reserve: a treasury UNIT UTXO (issue), only the treasury address (repay), or nothing. */
  reserve: 'treasury-utxo' | 'treasury-address' | null;
  /** false: the vault pays the fee (withdraw), no payment inputs and no change. */
  paysFromWallet: boolean;
  /** Fixed inputs and outputs before the payment inputs and change, in docs/protocol.md order. */
  inputs: readonly ShapeInput[];
  outputs: readonly ShapeOutput[];
}

const ISSUE_OUTPUTS = ['p2tr', 'p2tr', 'p2tr', 'runestone', 'state'] as const;

export const ACTION_SHAPES: Record<VaultAction, ActionShape> = {
  open: {
    code: 'o',
    vault: 'creates',
    btc: 1,
    unit: 1,
    minBtc: true,
    keepsRatio: true,
    fundedPostage: 'account',
    accountPostage: true,
    reserve: 'treasury-utxo',
    paysFromWallet: true,
    inputs: ['treasury'],
    outputs: ['p2tr', 'p2tr', 'p2tr', 'runestone', 'opening-state'],
  },
  deposit: {
    code: 'd',
    vault: 'updates',
    btc: 1,
    unit: 0,
    minBtc: true,
    keepsRatio: false,
    fundedPostage: null,
    accountPostage: false,
    reserve: null,
    paysFromWallet: true,
    inputs: ['vault-update'],
    outputs: ['p2tr', 'state'],
  },
  withdraw: {
    code: 'w',
    vault: 'updates',
    btc: -1,
    unit: 0,
    minBtc: true,
    keepsRatio: true,
    fundedPostage: null,
    accountPostage: false,
    reserve: null,
    paysFromWallet: false,
    inputs: ['vault-update'],
    outputs: ['p2tr', 'withdrawal', 'state'],
  },
  borrow: {
    code: 'b',
    vault: 'updates',
    btc: 0,
    unit: 1,
    minBtc: false,
    keepsRatio: true,
    fundedPostage: 'account',
    accountPostage: true,
    reserve: 'treasury-utxo',
    paysFromWallet: true,
    inputs: ['vault-update', 'treasury'],
    outputs: ISSUE_OUTPUTS,
  },
  repay: {
    code: 'r',
    vault: 'updates',
    btc: 0,
    unit: -1,
    minBtc: false,
    keepsRatio: false,
    fundedPostage: 'treasury',
    accountPostage: true,
    reserve: 'treasury-address',
    paysFromWallet: true,
    inputs: ['vault-update', 'unit'],
    outputs: ISSUE_OUTPUTS,
  },
  repossess: {
    code: 'x',
    vault: 'claims',
    btc: 0,
    unit: 0,
    minBtc: false,
    keepsRatio: true,
    fundedPostage: null,
    accountPostage: false,
    reserve: null,
    paysFromWallet: true,
    inputs: ['vault-liquidation', 'vault-update'],
    outputs: ['p2tr', 'p2tr', 'state'],
  },
};

export const VAULT_ACTIONS = Object.keys(ACTION_SHAPES) as VaultAction[];

/** Bytes of a state record before any key or commitment (docs/protocol.md, version 1). */
const STATE_RECORD_BASE_BYTES = 63;
/** The opening's vault key (version 2) and the price quorum commitment (versions 3 and 4). */
const STATE_RECORD_EXTRA_BYTES = 32;
/** A layout 2 vault's term in its record: settlement and exit heights, the exit's sibling hash. */
const STATE_RECORD_TERM_BYTES = 4 + 4 + 32;
/** A push of 76 bytes or more needs OP_PUSHDATA1 and a length byte; below, one length opcode. */
const OP_PUSHDATA1_FROM = 76;

/**
 * The byte length of a state record output's script, `OP_RETURN <push>`: 65 for an update's 63
 * bytes, 98 for an opening's 95 (with its key). With the guardian network (`committed`: the
 * record commits to the quote's price quorum) 32 more bytes: 98 for an update (its push then needs
 * OP_PUSHDATA1: +33 in all), 130 for an opening. packages/bitcoin's state-record.ts writes these.
 */
export function stateRecordScriptBytes(
  output: Extract<ShapeOutput, 'state' | 'opening-state'>,
  committed: boolean,
  termed = false,
): number {
  const data =
    STATE_RECORD_BASE_BYTES +
    (output === 'opening-state' ? STATE_RECORD_EXTRA_BYTES : 0) +
    (committed ? STATE_RECORD_EXTRA_BYTES : 0) +
    (termed ? STATE_RECORD_TERM_BYTES : 0);
  return 1 + (data < OP_PUSHDATA1_FROM ? 1 : 2) + data;
}
