// The block store's reads: the tip, median time past, where a transaction sits and how confirmed
// it is. Every other part of the devnet asks these; the miner is the only one that adds blocks.
import type { TxStatus } from '../chain/port';
import { MEDIAN_TIME_SPAN, medianTimePast } from './locks';
import { num, type Db, type DevnetTip } from './store';

export class BlockStore {
  constructor(private readonly db: Db) {}

  async tip(): Promise<DevnetTip> {
    const row = await this.db
      .selectFrom('devnet_blocks')
      .select(['height', 'hash', 'time'])
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return { height: num(row.height), hash: row.hash, time: num(row.time) };
  }

  /** BIP-113's median time past of the block at `height`: the median of it and the 10 before. */
  async medianTimePastAt(height: number): Promise<number> {
    const rows = await this.db
      .selectFrom('devnet_blocks')
      .select('time')
      .where('height', '<=', height)
      .orderBy('height', 'desc')
      .limit(MEDIAN_TIME_SPAN)
      .execute();
    return medianTimePast(rows.map((r) => num(r.time)));
  }

  /** The txid at `index` in the block at `height` (0 is the coinbase), or null. */
  async txidAt(height: number, index: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .select('txid')
      .where('block_height', '=', height)
      .where('block_index', '=', index)
      .executeTakeFirst();
    return row?.txid ?? null;
  }

  /** esplora /block/:hash/txids: the block's transactions in order (a rune id's tx is its index). */
  async blockTxids(hash: string): Promise<string[] | null> {
    const block = await this.db
      .selectFrom('devnet_blocks')
      .select('height')
      .where('hash', '=', hash)
      .executeTakeFirst();
    if (!block) return null;
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select('txid')
      .where('block_height', '=', block.height)
      .orderBy('block_index')
      .execute();
    return rows.map((row) => row.txid);
  }

  async blockHashAt(height: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('devnet_blocks')
      .select('hash')
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash ?? null;
  }

  async txStatus(txid: string): Promise<TxStatus | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .select('block_height')
      .where('txid', '=', txid)
      .executeTakeFirst();
    if (!row) return null;
    return this.statusAt(row.block_height === null ? null : num(row.block_height));
  }

  async statusAt(height: number | null): Promise<TxStatus> {
    if (height === null) return { confirmed: false };
    const block = await this.db
      .selectFrom('devnet_blocks')
      .select(['hash', 'time'])
      .where('height', '=', height)
      .executeTakeFirstOrThrow();
    return {
      confirmed: true,
      block_height: height,
      block_hash: block.hash,
      block_time: num(block.time),
    };
  }
}
