// One round of the settlement at the term (docs/protocol.md, "Leaving without the guardians"): the
// vaults due at the chain's tip (vaultsDueForSettlement: bounded, oldest term first), each under
// its vault lock as every request takes it, planned from its row against the chain
// (prepareSettlement), signed by the guardians with a fresh quorum quote, stored as a co-signed
// request with its effects before it is sent, and sent as a request's transaction is (sendOrFind):
// on the network, the vault is `settled` with its history `s`; refused, the request fails; no
// answer, the request is handed to recovery with the vault's lock, which settles it from the chain
// (recover.ts). A vault that cannot be settled now (a request holds it, its output moved, the
// network's fee rate is over the settlement's cap, the guardians refused) is left to a later round
// and named in the answer; one failure never stops the others.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import type { SettlementPlan } from '@unit/bitcoin';
import { SETTLEMENT_MAX_FEE_RATE, type SignedQuote } from '@unit/protocol';
import type { Chain } from '../chain/port';
import {
  advanceGuardianRequest,
  vaultsDueForSettlement,
  type Database,
  type VaultRow,
} from '../store';
import { applyEffects, type SettleEffects } from './effects';
import { acquireLocks, LOCK_SECONDS, lockOwner, releaseLocks, vaultLock } from './locks';
import { advanceOwnedRequest } from './ownership';
import { handOff, sendOrFind } from './settle';
import type { SettlementJob } from './signer';
import { NotSettleable, prepareSettlement, type SettlementFacts } from './term-settle';

/** The request method a settlement is stored under (guardian_requests), for recovery and tracing. */
export const SETTLE_METHOD = 'term.settle';

export interface SettleRoundDeps {
  db: Kysely<Database>;
  chain: Pick<Chain, 'tip' | 'output' | 'broadcast' | 'txStatus'>;
  facts: SettlementFacts;
  /** The key the vault's output commits to (vault-guard-key.ts). */
  guardKeyOf(row: VaultRow): Promise<Uint8Array>;
  /** `OP_1 <newest group key>`. */
  treasuryScript: Uint8Array;
  /** A fresh quote of the guardians' price quorum, taken for each vault. */
  quote(): Promise<SignedQuote>;
  /** The network's fee rate now, sat/vB; above SETTLEMENT_MAX_FEE_RATE the settlement waits. */
  feeRate(): Promise<number>;
  /** The guardians' signature, the settlement finished (settle-cosign.ts, or the one local key). */
  sign(job: SettlementJob): Promise<Transaction>;
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
    // Named after its request, so recovery finds (and frees) the lock of one handed to it.
    const nonce = `settle-${randomBytes(12).toString('hex')}`;
    const owner = lockOwner(nonce);
    const holder = { owner, instanceId: d.instanceId };
    if (!(await acquireLocks(d.db, [vaultLock(row.vault_pubkey)], holder, d.now()))) {
      result.left.push({ vault_id: row.vault_id, reason: 'a request holds the vault' });
      continue;
    }
    try {
      const txid = await settleOne(d, row, nonce, owner);
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

/** The network's fee rate as a settlement's: a whole number, at least 1, never over the cap. */
export function settlementFeeRate(networkRate: number): number {
  const rate = Math.max(1, Math.ceil(networkRate));
  if (!Number.isFinite(networkRate) || rate > SETTLEMENT_MAX_FEE_RATE)
    throw new NotSettleable(
      `the network's fee rate (${networkRate} sat/vB) is over a settlement's ${SETTLEMENT_MAX_FEE_RATE}: it waits for cheaper blocks`,
    );
  return rate;
}

async function settleOne(
  d: SettleRoundDeps,
  row: VaultRow,
  nonce: string,
  owner: string,
): Promise<string> {
  const [guardPubkey, quote, networkRate] = await Promise.all([
    d.guardKeyOf(row),
    d.quote(),
    d.feeRate(),
  ]);
  const { plan, request } = await prepareSettlement(d.facts, row, {
    guardPubkey,
    priceCents: BigInt(quote.price_cents),
    treasuryScript: d.treasuryScript,
    feeRate: settlementFeeRate(networkRate),
  });
  const tx = await d.sign({ plan, request, vaultPubkey: row.vault_pubkey, quote, guardPubkey });
  const effects = settleEffects(row, plan, quote);
  const stored = { nonce, expires_at: d.now() + LOCK_SECONDS };
  await storeCosigned(d, row, stored, tx, effects);
  const sent = await sendOrFind(d.chain, tx.id, tx.hex);
  if (sent.outcome === 'refused') {
    await advanceGuardianRequest(d.db, nonce, 'failed', { error: sent.reason }, d.now());
    throw new Error(`the network refused the settlement: ${sent.reason}`);
  }
  if (sent.outcome === 'unknown') {
    await handOff(d.db, stored, d.instanceId, owner, sent.reason, d.now());
    throw new Error(
      `the network did not answer (${sent.reason}): the settlement is settled from the chain`,
    );
  }
  const now = d.now();
  await d.db.transaction().execute(async (trx) => {
    // One taken over by recovery meanwhile is committed there, from the same effects.
    const txid = tx.id;
    if (await advanceOwnedRequest(trx, nonce, d.instanceId, 'cosigned', 'broadcast', { txid }, now))
      await applyEffects(trx, effects, txid, now);
  });
  return tx.id;
}

/** What the settlement does to the vault's row and history once it is on the network. */
function settleEffects(row: VaultRow, plan: SettlementPlan, quote: SignedQuote): SettleEffects {
  return {
    kind: 'settle',
    vault_id: row.vault_id,
    btc_amt: Number(row.btc_locked),
    unit_amt: Number(row.unit_borrowed),
    oracle_price: Math.floor(quote.price_cents / 100),
    // The owner's output is the last one (term-settlement.ts), absent when dust left none.
    owner_vout: plan.ownerSats > 0n ? plan.tx.outputsLength - 1 : null,
    owner_script: hex.encode(plan.ownerScript),
  };
}

/** Kept before the broadcast: after a crash, recovery asks the chain about it (recover.ts). */
async function storeCosigned(
  d: SettleRoundDeps,
  row: VaultRow,
  stored: { nonce: string; expires_at: number },
  tx: Transaction,
  effects: SettleEffects,
): Promise<void> {
  const now = d.now();
  await d.db
    .insertInto('guardian_requests')
    .values({
      ...stored,
      method: SETTLE_METHOD,
      vault_id: row.vault_id,
      vault_pubkey: row.vault_pubkey,
      state: 'cosigned',
      txid: tx.id,
      raw_hex: tx.hex,
      effects: JSON.stringify(effects),
      instance_id: d.instanceId,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
