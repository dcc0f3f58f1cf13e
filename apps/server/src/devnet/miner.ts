// Mining: the block timer, each block taking the whole mempool behind a coinbase that pays the
// subsidy and the fees to the faucet, and genesis. The only writer of devnet_blocks.
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import { blockHash, ZERO_HASH } from './block';
import { allocateUnit } from './checks';
import type { DevnetParts } from './mempool';
import {
  coinbaseTx,
  etchingTx,
  GENESIS_ETCHING_FEE_SATS,
  GENESIS_FAUCET_SATS,
  subsidy,
  type GenesisOptions,
} from './genesis';
import { big, insertTx, num, type DevnetTip, type Trx } from './store';

export class Miner {
  private readonly listeners = new Set<(tip: DevnetTip) => void>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly env: DevnetParts & { blockIntervalMs: number }) {}

  /** Starts mining a block every blockIntervalMs (no-op when the interval is 0). */
  start(): void {
    if (this.timer !== null || this.env.blockIntervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.mine(1).catch(() => undefined);
    }, this.env.blockIntervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  onBlock(listener: (tip: DevnetTip) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  // ---- writes ----

  /** Mines n blocks holding the whole mempool; returns their hashes. */
  async mine(n = 1): Promise<string[]> {
    if (!Number.isInteger(n) || n < 1) throw new Error('mine: n must be a positive integer');
    const hashes = await this.env.mutex.run(async () => {
      const mined: string[] = [];
      for (let i = 0; i < n; i++)
        mined.push(await this.env.db.transaction().execute((trx) => this.mineBlock(trx)));
      return mined;
    });
    const tip = await this.env.blocks.tip();
    for (const listener of this.listeners) {
      try {
        listener(tip);
      } catch {
        // A failing listener must not undo or hide a block that is already mined.
      }
    }
    return hashes;
  }

  private async mineBlock(
    trx: Trx,
    extra: Transaction[] = [],
    extraUnits: bigint[][] = [],
  ): Promise<string> {
    const tip = await trx
      .selectFrom('devnet_blocks')
      .selectAll()
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirst();
    const height = tip ? num(tip.height) + 1 : 0;
    const prevHash = tip ? tip.hash : ZERO_HASH;
    const mempool = await trx
      .selectFrom('devnet_txs')
      .select(['txid', 'fee'])
      .where('block_height', 'is', null)
      .orderBy('seq')
      .execute();
    let fees = 0n;
    for (const tx of mempool) fees += big(tx.fee);
    // Transactions the devnet writes itself at genesis pay their fee to the same coinbase.
    for (let i = 0; i < extra.length; i++) fees += GENESIS_ETCHING_FEE_SATS;
    const coinbase = coinbaseTx(height, this.env.faucet.script, subsidy(height) + fees);
    const time = Math.max(Math.floor(this.env.now() / 1000), tip ? num(tip.time) + 1 : 0);
    const txids = [coinbase.id, ...mempool.map((t) => t.txid), ...extra.map((t) => t.id)];
    const hash = blockHash(prevHash, txids, time);
    await trx
      .insertInto('devnet_blocks')
      .values({ height, hash, prev_hash: prevHash, time, tx_count: txids.length })
      .execute();
    await insertTx(
      trx,
      coinbase,
      { fee: 0n, units: [], blockHeight: height, blockIndex: 0 },
      this.env,
    );
    for (let i = 0; i < mempool.length; i++) {
      await trx
        .updateTable('devnet_txs')
        .set({ block_height: height, block_index: i + 1 })
        .where('txid', '=', mempool[i]!.txid)
        .execute();
    }
    for (let i = 0; i < extra.length; i++) {
      const at = {
        fee: GENESIS_ETCHING_FEE_SATS,
        units: extraUnits[i] ?? [],
        blockHeight: height,
        blockIndex: mempool.length + 1 + i,
      };
      await insertTx(trx, extra[i]!, at, this.env);
    }
    return hash;
  }

  /**
   * Genesis: block 0 pays the faucet's allowance; block 1 holds the UNIT etching, a faucet-signed
   * transaction whose runestone premines the whole supply over the treasury outputs (and funds the
   * guardian). The rune id is therefore 1:1, never the 0:0 that edicts reserve for "this etching".
   */
  async genesis(opts: GenesisOptions): Promise<void> {
    const { db, faucet, unitRuneId } = this.env;
    await this.env.mutex.run(() =>
      db.transaction().execute(async (trx) => {
        await this.mineBlockWithAllowance(trx);
        const [first] = await trx
          .selectFrom('devnet_outputs')
          .select(['txid', 'vout', 'value'])
          .where('script_hex', '=', hex.encode(faucet.script))
          .execute();
        if (!first) throw new Error('genesis allowance missing');
        const etching = etchingTx(first, faucet, opts);
        await this.mineBlock(trx, [etching], [allocateUnit(etching, [], unitRuneId, true)]);
        await trx
          .insertInto('devnet_meta')
          .values({ key: 'unit_rune_id', value: unitRuneId })
          .execute();
      }),
    );
  }

  private async mineBlockWithAllowance(trx: Trx): Promise<void> {
    const coinbase = coinbaseTx(0, this.env.faucet.script, GENESIS_FAUCET_SATS);
    const time = Math.floor(this.env.now() / 1000);
    const hash = blockHash(ZERO_HASH, [coinbase.id], time);
    await trx
      .insertInto('devnet_blocks')
      .values({ height: 0, hash, prev_hash: ZERO_HASH, time, tx_count: 1 })
      .execute();
    await insertTx(trx, coinbase, { fee: 0n, units: [], blockHeight: 0, blockIndex: 0 }, this.env);
  }
}
