// What a guardian reads from its own chain view to check one vault request: every input's prevout
// as the chain has it (unspent, same script and value as the PSBT claims), and the known UTXOs the
// action's declaration spends. A vault's state (sats, debt, threshold, stamp) is the state record of
// the transaction that created its output, never the coordinator's word.
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import {
  findStateRecord,
  vaultOutput,
  type KnownUtxo,
  type StateRecord,
  type VaultOutput,
  type VaultOutputParams,
} from '@unit/bitcoin';
import type { ChainTxOutput, ChainView } from './chain-view';

/** A refusal a user can read; thrown by the reads, caught by the policy. */
export class Refused extends Error {}

/** An input of the PSBT as it claims it. */
export interface ClaimedInput {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

/** The transactions the inputs spend from, read once each, in parallel. */
export type ChainTxs = Map<string, ChainTxOutput[]>;

/**
 * Every input's prevout as the chain has it: its transaction known, the output there with the same
 * script and value as the PSBT's witnessUtxo, and unspent. A speed-up names the transaction it
 * replaces (`replaced`): an output spent by that very transaction is taken as unspent, since the
 * replacement evicts it; spent by any other, it is refused as for every action.
 */
export async function checkPrevouts(
  chain: ChainView,
  inputs: ClaimedInput[],
  replaced?: string,
): Promise<ChainTxs> {
  const txids = [...new Set(inputs.map((i) => i.txid))];
  const [txs, spenders] = await Promise.all([
    Promise.all(txids.map((id) => chain.txOutputs(id))),
    Promise.all(inputs.map((i) => chain.spentBy(i.txid, i.vout))),
  ]);
  const known: ChainTxs = new Map();
  txids.forEach((id, i) => {
    const outputs = txs[i];
    if (outputs) known.set(id, outputs);
  });
  inputs.forEach((input, index) => {
    const output = known.get(input.txid)?.[input.vout];
    if (!output) throw new Refused(`input ${index} is not an output on this guardian's chain`);
    if (!equalBytes(output.script, input.script) || output.value !== input.amount)
      throw new Refused(`input ${index} does not match the output on this guardian's chain`);
    const spender = spenders[index];
    if (spender !== null && spender !== undefined && spender !== replaced)
      throw new Refused(`input ${index} is already spent on this guardian's chain`);
  });
  return known;
}

/** The heights of a record's term, as `vaultOutput` takes them. */
const recordedTerm = ({
  settleHeight,
  exitHeight,
}: {
  settleHeight: number;
  exitHeight: number;
}) => ({
  settleHeight,
  exitHeight,
});

/** A vault output and the state its creating transaction recorded. */
export interface VaultOnChain {
  utxo: KnownUtxo & { unitDebt: bigint };
  record: StateRecord;
  /** The output rebuilt from the expected keys and the record (absent for a claimed vault). */
  output?: VaultOutput;
}

/**
 * The vault spent by input `index`: the state record of the transaction that created it. `expect`
 * names the keys its output must commit to (the vault key and the group key, with the oracle's
 * threshold hash of the recorded threshold and stamp); null when the key is not known (a claimed
 * vault), whose output is then taken as the chain has it.
 */
export async function vaultOnChain(
  chain: ChainView,
  txs: ChainTxs,
  input: ClaimedInput,
  what: string,
  expect: Omit<VaultOutputParams, 'thresholdHash'> | null,
): Promise<VaultOnChain> {
  const outputs = txs.get(input.txid)!;
  const found = findStateRecord(outputs);
  if (!found) throw new Refused(`${what} was not created by a vault transaction`);
  const { record } = found;
  let output: VaultOutput | undefined;
  if (expect) {
    if (record.vaultPubkey && !equalBytes(record.vaultPubkey, expect.vaultPubkey))
      throw new Refused(`${what} was opened with another vault key`);
    const rebuilt = vaultOutput({
      ...expect,
      thresholdHash: (await chain.thresholdHashes(Number(record.thresholdCents), record.quoteStamp))
        .hashes,
      // Layout 2: the record's term is the one its output commits to (docs/protocol.md).
      ...(record.term ? { term: recordedTerm(record.term) } : {}),
    });
    if (!equalBytes(rebuilt.script, input.script))
      throw new Refused(`${what} is not this vault key's vault under this guardian set`);
    if (record.term && !equalBytes(record.term.exitBranch, rebuilt.exitBranch!))
      throw new Refused(`${what} was recorded with an exit branch its output does not have`);
    output = rebuilt;
  }
  return {
    utxo: {
      txid: input.txid,
      vout: input.vout,
      value: input.amount,
      script: input.script,
      unitDebt: record.unitDebt,
    },
    record,
    ...(output ? { output } : {}),
  };
}

/** The treasury UTXO an action spends: the treasury's script, with the UNIT the runes routes say. */
export async function treasuryOnChain(
  chain: ChainView,
  txs: ChainTxs,
  input: ClaimedInput,
  treasuryScript: Uint8Array,
): Promise<KnownUtxo & { unitAmount: bigint }> {
  if (!equalBytes(input.script, treasuryScript))
    throw new Refused('the treasury input is not the treasury');
  const address = txs.get(input.txid)![input.vout]!.address;
  if (address === null) throw new Refused('the treasury input has no address');
  const unitAmount = await chain.unitAmount(address, input.txid, input.vout);
  return {
    txid: input.txid,
    vout: input.vout,
    value: input.amount,
    script: input.script,
    unitAmount,
  };
}

export const hexOf = (bytes: Uint8Array) => hex.encode(bytes);
