// The mempool: what a node would accept (policy.ts, locks.ts, chain-limits.ts, signatures and
// UNIT by checks.ts, BIP-125 by replacement.ts), the faucet's payments, and what was replaced.
import { hex } from '@scure/base';
import { Address, OutScript, Transaction } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import type { BlockStore } from './block-store';
import { checkMempoolChain } from './chain-limits';
import { allocateUnit, checkSignatures, type Prevout } from './checks';
import { FAUCET_FEE_RATE } from './genesis';
import { checkFinal, checkSequenceLocks } from './locks';
import { checkAmounts, checkShape, decodeRawTx, refuse, REJECT } from './policy';
import { replacementEvictions } from './replacement';
import { big, insertTx, num, type Db, type DevnetFaucet, type Mutex, type Trx } from './store';

/** What the mempool and the miner share: the chain's tables, its write lock and identities. */
export interface DevnetParts {
  db: Db;
  blocks: BlockStore;
  mutex: Mutex;
  network: BTC_NETWORK;
  now: () => number;
  faucet: DevnetFaucet;
  unitRuneId: string;
}

export class Mempool {
  constructor(private readonly env: DevnetParts) {}

  /** Validates and accepts a raw transaction into the mempool; refusals throw BroadcastError. */
  broadcast(rawHex: string): Promise<string> {
    return this.env.mutex.run(() => this.accept(rawHex));
  }

  /** Sends sats from the faucet to an address (a real signed transaction); returns its txid. */
  fund(address: string, sats: bigint | number): Promise<string> {
    const amount = BigInt(sats);
    const script = OutScript.encode(Address(this.env.network).decode(address));
    return this.env.mutex.run(async () => {
      // Mined outputs first, largest first: paying from the last payment's change would chain the
      // faucet's payments past the mempool's 25-transaction limit between two blocks.
      const utxos = (
        await this.env.db
          .selectFrom('devnet_outputs as o')
          .innerJoin('devnet_txs as t', 't.txid', 'o.txid')
          .select(['o.txid', 'o.vout', 'o.value', 't.block_height'])
          .where('o.script_hex', '=', hex.encode(this.env.faucet.script))
          .where('o.spent_txid', 'is', null)
          .where('o.unit_amount', '=', 0)
          .orderBy('o.value', 'desc')
          .execute()
      ).sort((a, b) => Number(a.block_height === null) - Number(b.block_height === null));
      const tx = new Transaction();
      tx.addOutput({ script, amount });
      let total = 0n;
      for (const utxo of utxos) {
        tx.addInput({
          txid: utxo.txid,
          index: utxo.vout,
          witnessUtxo: { script: this.env.faucet.script, amount: big(utxo.value) },
        });
        total += big(utxo.value);
        // A P2WPKH input and two outputs: ~69 vB per input plus ~75 vB; be generous.
        if (total >= amount + FAUCET_FEE_RATE * BigInt(100 + 70 * tx.inputsLength)) break;
      }
      const fee = FAUCET_FEE_RATE * BigInt(100 + 70 * tx.inputsLength);
      const change = total - amount - fee;
      if (change < 0n) throw new Error('the faucet cannot cover this amount');
      if (change >= 546n) tx.addOutput({ script: this.env.faucet.script, amount: change });
      tx.sign(this.env.faucet.secret);
      tx.finalize();
      return this.accept(tx.hex);
    });
  }

  private async accept(rawHex: string): Promise<string> {
    const tx = decodeRawTx(rawHex);
    checkShape(tx);
    // Valid in the next block only: height tip + 1, the tip's median time past (BIP-113).
    const tip = await this.env.blocks.tip();
    const next = {
      height: tip.height + 1,
      medianTimePast: await this.env.blocks.medianTimePastAt(tip.height),
    };
    checkFinal(tx, next.height, next.medianTimePast);
    const txid = tx.id;
    const known = await this.env.db
      .selectFrom('devnet_txs')
      .select('block_height')
      .where('txid', '=', txid)
      .executeTakeFirst();
    if (known) refuse(known.block_height === null ? REJECT.inMempool : REJECT.inChain);

    const prevouts: Prevout[] = [];
    const coinHeights: number[] = [];
    const inputUnits: bigint[] = [];
    /** Mempool transactions that spend one of our inputs: candidates for replacement. */
    const conflicts = new Set<string>();
    let valueIn = 0n;
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const row = await this.env.db
        .selectFrom('devnet_outputs')
        .selectAll()
        .where('txid', '=', hex.encode(input.txid!))
        .where('vout', '=', input.index!)
        .executeTakeFirst();
      if (!row) return refuse(REJECT.missingOrSpent);
      if (row.spent_txid !== null) {
        const spender = await this.env.db
          .selectFrom('devnet_txs')
          .select('block_height')
          .where('txid', '=', row.spent_txid)
          .executeTakeFirstOrThrow();
        if (spender.block_height !== null) refuse(REJECT.missingOrSpent);
        conflicts.add(row.spent_txid);
      }
      const coin = await this.env.db
        .selectFrom('devnet_txs')
        .select('block_height')
        .where('txid', '=', row.txid)
        .executeTakeFirstOrThrow();
      // A coin still in the mempool counts as mined in the next block (Core's CheckSequenceLocksAtTip).
      coinHeights.push(coin.block_height === null ? next.height : num(coin.block_height));
      prevouts.push({ script: hex.decode(row.script_hex), amount: big(row.value) });
      inputUnits.push(big(row.unit_amount));
      valueIn += big(row.value);
    }
    await checkSequenceLocks(tx, {
      ...next,
      coinHeights,
      medianTimePastAt: (height) => this.env.blocks.medianTimePastAt(height),
    });
    let valueOut = 0n;
    for (let i = 0; i < tx.outputsLength; i++) valueOut += tx.getOutput(i).amount!;
    const fee = checkAmounts(valueIn, valueOut, tx.vsize);
    const evicted =
      conflicts.size > 0
        ? await replacementEvictions(this.env.db, this.env.blocks, tx, fee, conflicts)
        : [];
    const parents = [];
    for (let i = 0; i < tx.inputsLength; i++) parents.push(hex.encode(tx.getInput(i).txid!));
    await checkMempoolChain(this.env.db, parents, tx.vsize, new Set(evicted));
    checkSignatures(tx, prevouts);
    const units = allocateUnit(tx, inputUnits, this.env.unitRuneId);

    await this.env.db.transaction().execute(async (trx) => {
      if (evicted.length > 0) await this.evict(trx, evicted, txid);
      await insertTx(trx, tx, { fee, units, blockHeight: null, blockIndex: null }, this.env);
    });
    return txid;
  }

  /** Removes replaced transactions from the mempool: their outputs go, their inputs are unspent again. */
  private async evict(trx: Trx, txids: string[], replacedBy: string): Promise<void> {
    await trx
      .updateTable('devnet_outputs')
      .set({ spent_txid: null, spent_vin: null })
      .where('spent_txid', 'in', txids)
      .execute();
    await trx.deleteFrom('devnet_outputs').where('txid', 'in', txids).execute();
    await trx.deleteFrom('devnet_txs').where('txid', 'in', txids).execute();
    const time = Math.floor(this.env.now() / 1000);
    for (const txid of txids) {
      await trx.deleteFrom('devnet_replaced').where('txid', '=', txid).execute();
      await trx
        .insertInto('devnet_replaced')
        .values({ txid, replaced_by: replacedBy, time })
        .execute();
    }
  }

  /** The transaction that replaced `txid` in the mempool (BIP-125), following a chain of replacements. */
  async replacedBy(txid: string): Promise<string | null> {
    let current = txid;
    for (let hops = 0; hops < 100; hops++) {
      const row = await this.env.db
        .selectFrom('devnet_replaced')
        .select('replaced_by')
        .where('txid', '=', current)
        .executeTakeFirst();
      if (!row) return current === txid ? null : current;
      current = row.replaced_by;
    }
    return current;
  }
}
