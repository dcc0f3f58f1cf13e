// Reading raw transactions that may hold any script (runestones, state records, other wallets'
// outputs): btc-signer refuses unknown scripts by default, a node that relays them must not.
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';

/** A transaction as callers hold it: a btc-signer Transaction, raw bytes or raw hex. */
export type TransactionLike = Transaction | Uint8Array | string;

export interface TxOutputScript {
  script: Uint8Array;
  amount: bigint;
}

const PERMISSIVE = {
  allowUnknownOutputs: true,
  allowUnknownInputs: true,
  disableScriptCheck: true,
  allowLegacyWitnessUtxo: true,
} as const;

/** Parses a raw transaction without refusing non-standard scripts. */
export function parseTransaction(tx: TransactionLike): Transaction {
  if (tx instanceof Transaction) return tx;
  const raw = typeof tx === 'string' ? hex.decode(tx) : tx;
  return Transaction.fromRaw(raw, PERMISSIVE);
}

/** Every output's script and amount, in order. */
export function transactionOutputs(tx: TransactionLike): TxOutputScript[] {
  const parsed = parseTransaction(tx);
  const outputs: TxOutputScript[] = [];
  for (let i = 0; i < parsed.outputsLength; i++) {
    const { script, amount } = parsed.getOutput(i);
    if (!script || amount === undefined) throw new Error(`output ${i} is incomplete`);
    outputs.push({ script, amount });
  }
  return outputs;
}
