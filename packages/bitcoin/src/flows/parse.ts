// The guardian's reading of a wallet-signed PSBT: it must have exactly the inputs and outputs the
// action's declaration (actions/) lays out, and its amounts and state record must agree with each
// other. The declaration's output coder does the action's part; this file reads the PSBT, checks
// the known inputs in the declaration's order, the wallet's inputs and the change, and the fee.
import { DUST_LIMIT_SATS, type VaultAction } from '@unit/protocol';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { declarationOf } from '../actions';
import {
  BadTransaction,
  check,
  type KnownUtxo,
  type ParseContext,
  type ParsedVaultTransaction,
} from '../actions/types';
import type { TapLeafScript } from '../core';
import { deeperLeafWeight, VAULT_TX_OPTS, type PlannedOutput } from './vault-tx';
import { paymentScriptKind, transactionWeight, weightToVsize, type InputKind } from './vsize';

export type { KnownUtxo, ParseContext, ParsedVaultTransaction } from '../actions/types';
export { outputLayoutLength } from '../actions';

export type ParseResult =
  | { ok: true; value: ParsedVaultTransaction }
  | { ok: false; error: 'bad_transaction'; reason: string };

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

interface Input {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
  tapLeafScript?: TapLeafScript[];
}

function readTransaction(psbt: Uint8Array): { inputs: Input[]; outputs: PlannedOutput[] } {
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
      ...(input.tapLeafScript ? { tapLeafScript: input.tapLeafScript } : {}),
    });
  }
  const outputs: PlannedOutput[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const { script, amount } = tx.getOutput(i);
    check(script !== undefined && amount !== undefined, `output ${i} is incomplete`);
    outputs.push({ script, amount });
  }
  return { inputs, outputs };
}

function parse(action: VaultAction, psbt: Uint8Array, ctx: ParseContext): ParsedVaultTransaction {
  const declaration = declarationOf(action);
  const { paysFromWallet } = declaration.shape;
  const { inputs, outputs } = readTransaction(psbt);

  // ---- inputs: the known UTXOs first, in the declaration's order, then the wallet's ----
  const known: Record<string, KnownUtxo | undefined> = {
    liquidated: ctx.liquidated,
    vault: ctx.vault,
    treasury: ctx.treasury,
  };
  const kinds: InputKind[] = [];
  let extraWeight = 0;
  for (const { role, name, kind } of declaration.spends) {
    const utxo = known[role];
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
    // A vault committing to several keys or hashes spends a deeper leaf (docs/protocol.md).
    extraWeight += deeperLeafWeight({ kind, tapLeafScript: input.tapLeafScript });
  }
  for (let i = kinds.length; i < inputs.length; i++) {
    check(paysFromWallet, `a ${action} spends the vault alone`);
    const kind = paymentScriptKind(inputs[i]!.script);
    check(kind !== null, `input ${i}: Unexpected script type`);
    kinds.push(kind);
  }

  // ---- outputs: the declaration's slots, then an optional change that is not dust ----
  const slots = declaration.outputs.slots.length;
  check(
    outputs.length === slots || outputs.length === slots + 1,
    `expected ${slots} outputs (+ change), got ${outputs.length}`,
  );
  const changeVout = outputs.length > slots ? slots : null;
  if (changeVout !== null) {
    check(paysFromWallet, `a ${action} has no change output`);
    const change = outputs[changeVout]!;
    check(paymentScriptKind(change.script) !== null, 'change: Unexpected script type');
    check(change.amount >= (ctx.dustLimit ?? BigInt(DUST_LIMIT_SATS)), 'change is dust');
  }
  const { fields, btcAmount, unitAmount } = declaration.outputs.decode(
    outputs.slice(0, slots),
    ctx,
  );

  const fee =
    inputs.reduce((s, i) => s + i.amount, 0n) - outputs.reduce((s, o) => s + o.amount, 0n);
  check(fee > 0n, 'outputs exceed inputs');
  return {
    action,
    state: fields.state,
    btcAmount,
    unitAmount,
    vaultSats: fields.vaultSats,
    fee,
    vsize: weightToVsize(
      transactionWeight(
        kinds,
        outputs.map((o) => o.script),
      ) + extraWeight,
    ),
    changeVout,
  };
}
