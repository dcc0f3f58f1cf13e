// The address index: every output paid to an address with where it was created and who spends it,
// and the views built from it (esplora's UTXOs and stats, the app's UNIT and payment outputs).
import type { AddressStatsDto, UnitOutputDto, UtxoDto } from '@unit/protocol';
import type { ChainOutput, TxStatus } from '../chain/port';
import { num, type Db } from './store';

export class AddressIndex {
  constructor(private readonly db: Db) {}

  /**
   * Every output ever paid to the address, oldest first, with where it was created and whether its
   * spender is confirmed: one query, since the faucet's address collects a coinbase every block.
   */
  async addressRows(address: string) {
    const rows = await this.db
      .selectFrom('devnet_outputs as o')
      .innerJoin('devnet_txs as t', 't.txid', 'o.txid')
      .leftJoin('devnet_blocks as b', 'b.height', 't.block_height')
      .leftJoin('devnet_txs as s', 's.txid', 'o.spent_txid')
      .selectAll('o')
      .select([
        't.block_height',
        'b.hash as block_hash',
        'b.time as block_time',
        's.block_height as spent_height',
      ])
      .where('o.address', '=', address)
      .orderBy('t.seq')
      .orderBy('o.vout')
      .execute();
    return rows.map((row) => {
      const status: TxStatus =
        row.block_height === null || row.block_hash === null || row.block_time === null
          ? { confirmed: false }
          : {
              confirmed: true,
              block_height: num(row.block_height),
              block_hash: row.block_hash,
              block_time: num(row.block_time),
            };
      const output: ChainOutput = {
        txid: row.txid,
        vout: row.vout,
        value: num(row.value),
        script_hex: row.script_hex,
        address: row.address,
        unit_amount: num(row.unit_amount),
        spent: row.spent_txid !== null,
        status,
      };
      const spender =
        row.spent_txid === null
          ? null
          : { txid: row.spent_txid, confirmed: row.spent_height !== null };
      return { output, spender };
    });
  }

  /** Every output ever paid to the address, oldest first. */
  async addressOutputs(address: string): Promise<ChainOutput[]> {
    return (await this.addressRows(address)).map((row) => row.output);
  }

  /** Unspent outputs of the address, mempool included (esplora /address/:address/utxo). */
  async utxos(address: string): Promise<UtxoDto[]> {
    return (await this.addressOutputs(address))
      .filter((o) => !o.spent)
      .map((o) => ({ txid: o.txid, vout: o.vout, value: o.value, status: o.status }));
  }

  /** Unspent outputs that carry no UNIT: safe to spend for BTC. */
  async paymentUtxos(address: string): Promise<UtxoDto[]> {
    return (await this.addressOutputs(address))
      .filter((o) => !o.spent && o.unit_amount === 0)
      .map((o) => ({ txid: o.txid, vout: o.vout, value: o.value, status: o.status }));
  }

  /**
   * UNIT outputs of the address (SPEC §3 UNIT output): every unspent one, plus those a mempool
   * transaction is spending, marked spent, so a wallet does not pick them twice.
   */
  async unitOutputs(address: string): Promise<UnitOutputDto[]> {
    const rows = await this.db
      .selectFrom('devnet_outputs')
      .leftJoin('devnet_txs', 'devnet_txs.txid', 'devnet_outputs.spent_txid')
      .innerJoin('devnet_txs as created', 'created.txid', 'devnet_outputs.txid')
      .select([
        'devnet_outputs.txid',
        'devnet_outputs.vout',
        'devnet_outputs.script_hex',
        'devnet_outputs.value',
        'devnet_outputs.unit_amount',
        'devnet_outputs.spent_txid',
        'devnet_txs.block_height as spent_height',
      ])
      .where('devnet_outputs.address', '=', address)
      .where('devnet_outputs.unit_amount', '>', 0)
      .orderBy('created.seq')
      .orderBy('devnet_outputs.vout')
      .execute();
    return rows
      .filter((r) => r.spent_txid === null || r.spent_height === null)
      .map((r) => ({
        txid: r.txid,
        vout: r.vout,
        script_hex: r.script_hex,
        btc_amount: num(r.value),
        unit_amount: num(r.unit_amount),
        spent: r.spent_txid !== null,
      }));
  }

  /** esplora /address/:address: funded and spent sums, split by chain and mempool. */
  async addressStats(address: string): Promise<AddressStatsDto> {
    const empty = () => ({
      funded_txo_count: 0,
      funded_txo_sum: 0,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 0,
    });
    const chain = empty();
    const mempool = empty();
    const chainTxs = new Set<string>();
    const mempoolTxs = new Set<string>();
    for (const { output, spender } of await this.addressRows(address)) {
      const confirmed = output.status.confirmed;
      const side = confirmed ? chain : mempool;
      (confirmed ? chainTxs : mempoolTxs).add(output.txid);
      side.funded_txo_count += 1;
      side.funded_txo_sum += output.value;
      if (spender) {
        const spentSide = spender.confirmed ? chain : mempool;
        (spender.confirmed ? chainTxs : mempoolTxs).add(spender.txid);
        spentSide.spent_txo_count += 1;
        spentSide.spent_txo_sum += output.value;
      }
    }
    chain.tx_count = chainTxs.size;
    mempool.tx_count = mempoolTxs.size;
    return { address, chain_stats: chain, mempool_stats: mempool };
  }

  /** Transactions touching the address: mempool first, then confirmed, newest first (esplora order). */
  async addressTxids(address: string): Promise<string[]> {
    const funded = this.db
      .selectFrom('devnet_outputs')
      .select('txid')
      .where('address', '=', address);
    const spending = this.db
      .selectFrom('devnet_outputs')
      .select('spent_txid as txid')
      .where('address', '=', address)
      .where('spent_txid', 'is not', null);
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select(['txid', 'block_height', 'seq'])
      .where((eb) => eb.or([eb('txid', 'in', funded), eb('txid', 'in', spending)]))
      .orderBy('seq', 'desc')
      .execute();
    const mempool = rows.filter((r) => r.block_height === null);
    const confirmed = rows.filter((r) => r.block_height !== null);
    return [...mempool, ...confirmed].map((r) => r.txid);
  }
}
