// The app's side of the settlement at the term (docs/protocol.md, "Leaving without the guardians"):
// for a vault its owner left to its term, the settlement each guardian rebuilds from its own facts
// (term-settlement.ts of @unit/bitcoin), planned from the vault's row and checked against the chain
// first, so the app asks the guardians only for a transaction they can sign: the vault's output
// unspent and exactly the layout 2 output the row's keys, threshold and term make.
import { hex } from '@scure/base';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import {
  planSettlement,
  vaultOutput,
  type SettlementPlan,
  type SettlementRequest,
} from '@unit/bitcoin';
import type { Chain } from '../chain/port';
import { rowTerm, type VaultRow } from '../store';

export interface SettlementFacts {
  chain: Pick<Chain, 'output'>;
  /** One per liquidation leaf, as the vault's output commits to them. */
  thresholdHashes(thCents: bigint, stamp: number): Promise<Uint8Array[]>;
  network: BTC_NETWORK;
}

export interface SettlementTerms {
  /** The key the vault's output commits to (vault-guard-key.ts): its settlement leaf's. */
  guardPubkey: Uint8Array;
  /** The quorum's price, USD cents per BTC: the one the quote the guardians check carries. */
  priceCents: bigint;
  /** `OP_1 <newest group key>`: where each guardian sends the debt and the tax. */
  treasuryScript: Uint8Array;
  /** sat/vB, a whole number within the guardians' ceiling. */
  feeRate: number;
}

/** Why a vault is not settled now; the job logs it and tries again on a later block. */
export class NotSettleable extends Error {}

/** The settlement of `row` at `terms`, or NotSettleable with the reason. */
export async function prepareSettlement(
  facts: SettlementFacts,
  row: VaultRow,
  terms: SettlementTerms,
): Promise<{ request: SettlementRequest; plan: SettlementPlan }> {
  const term = rowTerm(row);
  if (!term) throw new NotSettleable('the vault has no term (layout 1)');
  const output = await facts.chain.output(row.vault_txid, row.vault_vout);
  if (!output) throw new NotSettleable('the vault output is not on the chain');
  if (output.spent) throw new NotSettleable('the vault output is already spent');
  const vault = vaultOutput({
    vaultPubkey: hex.decode(row.vault_pubkey),
    guardPubkey: terms.guardPubkey,
    thresholdHash: await facts.thresholdHashes(BigInt(row.threshold_cents), Number(row.stamp)),
    network: facts.network,
    term,
  });
  if (hex.encode(vault.script) !== output.script_hex)
    throw new NotSettleable("the vault output is not the one the vault's row describes");
  const request: SettlementRequest = {
    vault,
    slot: 0,
    utxo: { txid: row.vault_txid, vout: row.vault_vout, amount: BigInt(output.value) },
    debtCents: BigInt(row.unit_borrowed),
    priceCents: terms.priceCents,
    treasuryScript: terms.treasuryScript,
    feeRate: terms.feeRate,
  };
  try {
    return { request, plan: planSettlement(request) };
  } catch (error) {
    throw new NotSettleable((error as Error).message);
  }
}
