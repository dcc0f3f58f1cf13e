// The chain and mempool views esplora answers as lists: the latest blocks with their headers'
// facts, the mempool's totals, fee histogram, newest entries and fee estimate.
import type { EsploraBlock, EsploraMempool, EsploraMempoolRecent } from '../chain/esplora-types';
import type { RecommendedFeesDto } from '@unit/protocol';
import { displayHex, merkleRoot, REGTEST_BITS, REGTEST_DIFFICULTY, VERSION } from './block';
import type { BlockStore } from './block-store';
import { feeHistogram, recommendedFees } from './fees';
import { num, type Db } from './store';

export class ChainViews {
  constructor(
    private readonly db: Db,
    private readonly blocks: BlockStore,
  ) {}

  /** GET /blocks[/:start_height]: the 10 blocks from `start` (the tip when absent) down. */
  async esploraBlocks(start?: number): Promise<EsploraBlock[]> {
    const tip = (await this.blocks.tip()).height;
    const from = Math.min(start ?? tip, tip);
    const blocks = await this.db
      .selectFrom('devnet_blocks')
      .selectAll()
      .where('height', '<=', from)
      .orderBy('height', 'desc')
      .limit(10)
      .execute();
    const out: EsploraBlock[] = [];
    for (const block of blocks) {
      const height = num(block.height);
      const txs = await this.db
        .selectFrom('devnet_txs')
        .select(['txid', 'hex', 'weight'])
        .where('block_height', '=', height)
        .orderBy('block_index')
        .execute();
      // Header, the transaction count's varint, then the transactions.
      const countBytes = txs.length < 0xfd ? 1 : 3;
      const size = 80 + countBytes + txs.reduce((sum, t) => sum + t.hex.length / 2, 0);
      const weight = 4 * (80 + countBytes) + txs.reduce((sum, t) => sum + num(t.weight), 0);
      out.push({
        id: block.hash,
        height,
        version: VERSION,
        timestamp: num(block.time),
        tx_count: txs.length,
        size,
        weight,
        merkle_root: displayHex(merkleRoot(txs.map((t) => t.txid))),
        previousblockhash: height === 0 ? null : block.prev_hash,
        mediantime: await this.blocks.medianTimePastAt(height),
        nonce: 0,
        bits: REGTEST_BITS,
        difficulty: REGTEST_DIFFICULTY,
      });
    }
    return out;
  }

  /** GET /mempool: count, vsize and fees of what waits, and its fee histogram. */
  async mempoolStats(): Promise<EsploraMempool> {
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select(['fee', 'vsize', 'weight'])
      .where('block_height', 'is', null)
      .execute();
    const waiting = rows.map((r) => ({
      fee: num(r.fee),
      vsize: num(r.vsize),
      weight: num(r.weight),
    }));
    return {
      count: waiting.length,
      vsize: waiting.reduce((sum, t) => sum + t.vsize, 0),
      total_fee: waiting.reduce((sum, t) => sum + t.fee, 0),
      fee_histogram: feeHistogram(waiting),
    };
  }

  /** GET /mempool/recent: the last 10 transactions to enter the mempool, newest first. */
  async mempoolRecent(): Promise<EsploraMempoolRecent[]> {
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select(['txid', 'fee', 'vsize'])
      .where('block_height', 'is', null)
      .orderBy('seq', 'desc')
      .limit(10)
      .execute();
    const recent: EsploraMempoolRecent[] = [];
    for (const row of rows) {
      const value = await this.db
        .selectFrom('devnet_outputs')
        .select((eb) => eb.fn.sum<number | string>('value').as('value'))
        .where('txid', '=', row.txid)
        .executeTakeFirst();
      recent.push({
        txid: row.txid,
        fee: num(row.fee),
        vsize: num(row.vsize),
        value: num(value?.value ?? 0),
      });
    }
    return recent;
  }

  /** Fee rates (sat/vB) of what waits in the mempool, feeding the mempool.space-style estimate. */
  async fees(): Promise<RecommendedFeesDto> {
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select(['fee', 'vsize'])
      .where('block_height', 'is', null)
      .execute();
    return recommendedFees(rows.map((r) => ({ fee: num(r.fee), vsize: num(r.vsize) })));
  }

  async mempoolTxids(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select('txid')
      .where('block_height', 'is', null)
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.txid);
  }
}
