// The guardian's reading of a wallet-signed PSBT: it must have exactly the input and output layout
// of docs/protocol.md for the action, and its amounts and state record must agree with each other.
import { DUST_LIMIT_SATS, UNIT_POSTAGE_SATS, type VaultAction } from '@unit/protocol';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { parseStateRecordScript, type RuneId, type StateAction, type StateRecord } from '../core';
import { repossessionTax, unitRunestoneScript } from './builders';
import { VAULT_TX_OPTS } from './vault-tx';
import { paymentScriptKind, transactionWeight, weightToVsize, type InputKind } from './vsize';

/** A UTXO the guardian knows: the vault being spent, or the reserved treasury UTXO. */
export interface KnownUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

export interface ParseContext {
  /** The requester's vault (the claimant's on repossess); absent on open. */
  vault?: KnownUtxo & { unitDebt: bigint };
  /** The liquidated vault a repossess spends. */
  liquidated?: KnownUtxo & { unitDebt: bigint };
  /** The treasury UNIT UTXO reserved for open and borrow. */
  treasury?: KnownUtxo & { unitAmount: bigint };
  treasuryScript: Uint8Array;
  /** The vault output the transaction must create: the requester's keys and the quote's threshold. */
  newVaultScript: Uint8Array;
  unitRuneId: RuneId;
  /** Postage of the requester's own UNIT outputs (its referral level's); default SPEC §9's. */
  postageSats?: bigint;
  /** Postage of UNIT sent back to the treasury; default SPEC §9's. */
  treasuryPostageSats?: bigint;
  dustLimit?: bigint;
}

export interface ParsedVaultTransaction {
  action: VaultAction;
  state: StateRecord;
  /** BTC moved by the user: deposited (open, deposit), withdrawn (withdraw), taxed (repossess). */
  btcAmount: bigint;
  /** UNIT issued (open, borrow) or repaid (repay), hundredths; 0n otherwise. */
  unitAmount: bigint;
  vaultSats: bigint;
  fee: bigint;
  /** Estimated vsize once signed (signatures at their largest). */
  vsize: number;
  /** Index of the BTC change output, or null when it was left out. */
  changeVout: number | null;
}

export type ParseResult =
  | { ok: true; value: ParsedVaultTransaction }
  | { ok: false; error: 'bad_transaction'; reason: string };

const STATE_CODE: Record<VaultAction, StateAction> = {
  open: 'o',
  deposit: 'd',
  borrow: 'b',
  repay: 'r',
  withdraw: 'w',
  repossess: 'x',
};

/** Output slots before the optional change, in docs/protocol.md order. */
const OUTPUT_LAYOUT: Record<VaultAction, readonly string[]> = {
  open: ['vault', 'postage', 'treasury change', 'runestone', 'state'],
  deposit: ['vault', 'state'],
  borrow: ['vault', 'postage', 'treasury change', 'runestone', 'state'],
  repay: ['vault', 'treasury postage', 'unit change', 'runestone', 'state'],
  withdraw: ['vault', 'withdrawal', 'state'],
  repossess: ['vault', 'tax', 'state'],
};

/** How many outputs an action has before its optional change (docs/protocol.md). */
export const outputLayoutLength = (action: VaultAction): number => OUTPUT_LAYOUT[action].length;

class BadTransaction extends Error {}

function check(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new BadTransaction(reason);
}

interface Input {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

interface Output {
  script: Uint8Array;
  amount: bigint;
}

/**
 * Checks that `psbt` is the `action` transaction of docs/protocol.md for this context and extracts
 * its amounts and state record. Signatures are not checked here (the devnet and `verifyInputs` do).
 */
export function parseVaultTransaction(
  action: VaultAction,
  psbt: Uint8Array,
  context: ParseContext,
): ParseResult {
  try {
    return { ok: true, value: parse(action, psbt, context) };
  } catch (error) {
    if (error instanceof BadTransaction)
      return { ok: false, error: 'bad_transaction', reason: error.message };
    return { ok: false, error: 'bad_transaction', reason: 'not a readable PSBT' };
  }
}

function parse(action: VaultAction, psbt: Uint8Array, ctx: ParseContext): ParsedVaultTransaction {
  const tx = Transaction.fromPSBT(psbt, VAULT_TX_OPTS);
  const inputs: Input[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    check(
      input.txid !== undefined && input.index !== undefined && input.witnessUtxo !== undefined,
      `input ${i} has no witnessUtxo`,
    );
    inputs.push({
      // btc-signer keeps PSBT txids in display order, as txids are written.
      txid: hex.encode(input.txid),
      vout: input.index,
      script: input.witnessUtxo.script,
      amount: input.witnessUtxo.amount,
    });
  }
  const outputs: Output[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const { script, amount } = tx.getOutput(i);
    check(script !== undefined && amount !== undefined, `output ${i} is incomplete`);
    outputs.push({ script, amount });
  }

  // ---- inputs: the known UTXOs first, in the contract's order, then the wallet's ----
  const kinds: InputKind[] = [];
  const expectKnown = (utxo: KnownUtxo | undefined, name: string, kind: InputKind) => {
    check(utxo !== undefined, `context has no ${name}`);
    const input = inputs[kinds.length];
    check(
      input !== undefined && input.txid === utxo.txid && input.vout === utxo.vout,
      `input ${kinds.length} must be the ${name}`,
    );
    check(
      equalBytes(input.script, utxo.script) && input.amount === utxo.value,
      `input ${kinds.length} does not match the ${name} on chain`,
    );
    kinds.push(kind);
  };
  if (action === 'repossess') expectKnown(ctx.liquidated, 'liquidated vault', 'vault-liquidation');
  if (action !== 'open') expectKnown(ctx.vault, 'vault', 'vault-update');
  if (action === 'open' || action === 'borrow') expectKnown(ctx.treasury, 'treasury UTXO', 'p2tr');
  for (let i = kinds.length; i < inputs.length; i++) {
    check(action !== 'withdraw', 'a withdraw spends the vault alone');
    const kind = paymentScriptKind(inputs[i]!.script);
    check(kind !== null, `input ${i}: Unexpected script type`);
    kinds.push(kind);
  }

  // ---- outputs: the fixed slots, then an optional change that is not dust ----
  const layout = OUTPUT_LAYOUT[action];
  check(
    outputs.length === layout.length || outputs.length === layout.length + 1,
    `expected ${layout.length} outputs (+ change), got ${outputs.length}`,
  );
  const changeVout = outputs.length > layout.length ? layout.length : null;
  if (changeVout !== null) {
    check(action !== 'withdraw', 'a withdraw has no change output');
    const change = outputs[changeVout]!;
    check(paymentScriptKind(change.script) !== null, 'change: Unexpected script type');
    check(change.amount >= (ctx.dustLimit ?? BigInt(DUST_LIMIT_SATS)), 'change is dust');
  }
  const slot = (name: string): Output => outputs[layout.indexOf(name)]!;
  const vaultOut = slot('vault');
  check(equalBytes(vaultOut.script, ctx.newVaultScript), 'output 0 is not the expected vault');
  const state = parseStateRecordScript(slot('state').script);
  check(state !== null, 'no state record where the layout puts it');
  check(slot('state').amount === 0n, 'the state record carries sats');
  check(state.action === STATE_CODE[action], `state record action is ${state.action}`);
  check(state.vaultSats === vaultOut.amount, 'state record BTC differs from the vault output');

  const postage = ctx.postageSats ?? BigInt(UNIT_POSTAGE_SATS);
  const treasuryPostage = ctx.treasuryPostageSats ?? BigInt(UNIT_POSTAGE_SATS);
  const before = ctx.vault;
  let btcAmount = 0n;
  let unitAmount = 0n;
  const checkIssue = (amount: bigint) => {
    const treasury = ctx.treasury!;
    check(amount > 0n, 'no UNIT issued');
    check(amount <= treasury.unitAmount, 'the treasury UTXO holds too little UNIT');
    check(slot('postage').amount === postage, 'UNIT postage amount');
    check(
      !equalBytes(slot('postage').script, ctx.treasuryScript),
      'UNIT postage goes to the treasury',
    );
    const change = slot('treasury change');
    check(
      equalBytes(change.script, ctx.treasuryScript) && change.amount === treasury.value,
      'treasury change must return the treasury UTXO',
    );
    check(
      equalBytes(slot('runestone').script, unitRunestoneScript(ctx.unitRuneId, amount)),
      'runestone does not issue the recorded debt',
    );
    unitAmount = amount;
  };
  switch (action) {
    case 'open':
      checkIssue(state.unitDebt);
      btcAmount = vaultOut.amount;
      break;
    case 'deposit':
      check(state.unitDebt === before!.unitDebt, 'a deposit changes no debt');
      btcAmount = vaultOut.amount - before!.value;
      check(btcAmount > 0n, 'a deposit must add BTC to the vault');
      break;
    case 'borrow':
      check(vaultOut.amount === before!.value, 'a borrow keeps the vault BTC');
      checkIssue(state.unitDebt - before!.unitDebt);
      break;
    case 'repay': {
      check(vaultOut.amount === before!.value, 'a repay keeps the vault BTC');
      unitAmount = before!.unitDebt - state.unitDebt;
      check(unitAmount > 0n, 'a repay must lower the debt');
      const toTreasury = slot('treasury postage');
      check(
        equalBytes(toTreasury.script, ctx.treasuryScript) && toTreasury.amount === treasuryPostage,
        'UNIT must go to the treasury with postage',
      );
      check(slot('unit change').amount === postage, 'UNIT change postage amount');
      check(
        equalBytes(slot('runestone').script, unitRunestoneScript(ctx.unitRuneId, unitAmount)),
        'runestone does not repay the recorded amount',
      );
      break;
    }
    case 'withdraw': {
      check(state.unitDebt === before!.unitDebt, 'a withdraw changes no debt');
      const withdrawal = slot('withdrawal');
      check(paymentScriptKind(withdrawal.script) !== null, 'withdrawal: Unexpected script type');
      btcAmount = withdrawal.amount;
      check(btcAmount > 0n && vaultOut.amount < before!.value, 'a withdraw must take BTC out');
      break;
    }
    case 'repossess': {
      const liquidated = ctx.liquidated!;
      const tax = repossessionTax(liquidated.value);
      const taxOut = slot('tax');
      check(
        equalBytes(taxOut.script, ctx.treasuryScript) && taxOut.amount === tax,
        'repossession tax must be 15% to the treasury',
      );
      check(
        vaultOut.amount === before!.value + liquidated.value - tax,
        'the claimant vault must take the liquidated collateral less tax',
      );
      check(
        state.unitDebt === before!.unitDebt + liquidated.unitDebt,
        'the claimant vault must take on the liquidated debt',
      );
      btcAmount = tax;
      break;
    }
  }

  const fee =
    inputs.reduce((s, i) => s + i.amount, 0n) - outputs.reduce((s, o) => s + o.amount, 0n);
  check(fee > 0n, 'outputs exceed inputs');
  return {
    action,
    state,
    btcAmount,
    unitAmount,
    vaultSats: vaultOut.amount,
    fee,
    vsize: weightToVsize(
      transactionWeight(
        kinds,
        outputs.map((o) => o.script),
      ),
    ),
    changeVout,
  };
}
