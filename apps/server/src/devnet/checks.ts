// The two rules a node applies that '@unit/bitcoin' owns: input signatures (verifyInputs) and the
// runes allocation (decodeRunestone / allocateRunes). The devnet never accepts a transaction unchecked.
import type { Transaction } from '@scure/btc-signer';
import {
  allocateRunes,
  decodeRunestone,
  parseRuneId,
  transactionOutputs,
  verifyInputs,
  type Prevout,
} from '@unit/bitcoin';
import { REJECT, refuse } from './policy';

export type { Prevout };

/** Throws a BroadcastError with Core's reject reason unless every input's signature checks out. */
export function checkSignatures(tx: Transaction, prevouts: readonly Prevout[]): void {
  const result = verifyInputs(tx, prevouts);
  if (result.ok) return;
  if (result.reason === 'non-standard') refuse(REJECT.nonStandardInputs);
  refuse(`mandatory-script-verify-flag-failed (input ${result.input}: ${result.reason})`);
}

/**
 * UNIT carried by each output after the transaction: the inputs' UNIT moved by its runestone.
 * A cenotaph burns it all; UNIT sent to an OP_RETURN burns. `etchedId` is given only for the
 * genesis etching, the one etching the devnet accepts.
 */
export function allocateUnit(
  tx: Transaction,
  inputUnits: readonly bigint[],
  unitRuneId: string,
  etched = false,
): bigint[] {
  const outputs = transactionOutputs(tx);
  const total = inputUnits.reduce((sum, amount) => sum + amount, 0n);
  const allocation = allocateRunes({
    inputBalances: new Map(total > 0n ? [[unitRuneId, total]] : []),
    runestone: decodeRunestone(outputs),
    outputs,
    ...(etched ? { etchedId: parseRuneId(unitRuneId) } : {}),
  });
  return allocation.balances.map((balances) => balances.get(unitRuneId) ?? 0n);
}
