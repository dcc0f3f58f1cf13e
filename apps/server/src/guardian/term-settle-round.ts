// One round of the settlement at the term (docs/protocol.md, "Leaving without the guardians"): the
// vaults due at the chain's tip (vaultsDueForSettlement: bounded, oldest term first), each under
// its vault lock as every request takes it, planned from its row against the chain
// (prepareSettlement), signed by the guardians with a fresh quorum quote, and sent. A vault that
// cannot be settled now (a request holds it, its output moved, the guardians refused) is left to a
// later round and named in the answer; one failure never stops the others.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Transaction } from '@scure/btc-signer';
import type { SettlementPlan, SettlementRequest } from '@unit/bitcoin';
import type { SignedQuote } from '@unit/protocol';
import type { Chain } from '../chain/port';
import { vaultsDueForSettlement, type Database, type VaultRow } from '../store';
import { acquireLocks, lockOwner, releaseLocks, vaultLock } from './locks';
import { prepareSettlement, type SettlementFacts } from './term-settle';

export interface SettleRoundDeps {
  db: Kysely<Database>;
  chain: Pick<Chain, 'tip' | 'output' | 'broadcast'>;
  facts: SettlementFacts;
  /** The key the vault's output commits to (vault-guard-key.ts). */
  guardKeyOf(row: VaultRow): Promise<Uint8Array>;
  /** `OP_1 <newest group key>`. */
  treasuryScript: Uint8Array;
  /** A fresh quote of the guardians' price quorum, taken for each vault. */
  quote(): Promise<SignedQuote>;
  /** sat/vB, within the guardians' ceiling. */
  feeRate(): Promise<number>;
  /** The guardians' signature, the settlement finished (settle-cosign.ts, or the one local key). */
  sign(args: {
    plan: SettlementPlan;
    request: SettlementRequest;
    vaultPubkey: string;
    quote: SignedQuote;
  }): Promise<Transaction>;
  instanceId: string;
  /** unix seconds */
  now(): number;
  log: Logger;
  limit?: number;
}

export interface SettleRoundResult {
  settled: { vault_id: string; txid: string }[];
  left: { vault_id: string; reason: string }[];
}

/** Settles what is due at the tip; what is left is tried again on a later round. */
export async function settleDueVaults(d: SettleRoundDeps): Promise<SettleRoundResult> {
  const result: SettleRoundResult = { settled: [], left: [] };
  const tip = await d.chain.tip();
  for (const row of await vaultsDueForSettlement(d.db, tip.height, d.limit)) {
    const owner = lockOwner('settle');
    const holder = { owner, instanceId: d.instanceId };
    if (!(await acquireLocks(d.db, [vaultLock(row.vault_pubkey)], holder, d.now()))) {
      result.left.push({ vault_id: row.vault_id, reason: 'a request holds the vault' });
      continue;
    }
    try {
      const txid = await settleOne(d, row);
      result.settled.push({ vault_id: row.vault_id, txid });
      d.log.info({ vault: row.vault_id, txid }, 'vault settled at its term');
    } catch (error) {
      const reason = (error as Error).message;
      result.left.push({ vault_id: row.vault_id, reason });
      d.log.warn({ vault: row.vault_id, reason }, 'vault not settled this round');
    } finally {
      await releaseLocks(d.db, owner);
    }
  }
  return result;
}

async function settleOne(d: SettleRoundDeps, row: VaultRow): Promise<string> {
  const [guardPubkey, quote, feeRate] = await Promise.all([
    d.guardKeyOf(row),
    d.quote(),
    d.feeRate(),
  ]);
  const { plan, request } = await prepareSettlement(d.facts, row, {
    guardPubkey,
    priceCents: BigInt(quote.price_cents),
    treasuryScript: d.treasuryScript,
    feeRate,
  });
  const tx = await d.sign({ plan, request, vaultPubkey: row.vault_pubkey, quote });
  return d.chain.broadcast(tx.hex);
}
