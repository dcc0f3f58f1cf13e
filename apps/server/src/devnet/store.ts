// What every part of the devnet shares: the shapes it answers, the database handle, the lock that
// serialises its writes, and the one writer of a transaction's rows (the mempool's accept and the
// miner's coinbase both go through insertTx).
import type { Kysely, Transaction as DbTransaction } from 'kysely';
import { hex } from '@scure/base';
import { Address, OutScript, type Transaction } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import type { ChainTip, TxStatus } from '../chain/port';
import { ZERO_HASH } from './block';
import { isOpReturn } from './policy';
import type { DevnetDatabase } from './tables';

export interface DevnetTxOutput {
  vout: number;
  value: number;
  script_hex: string;
  address: string | null;
  unit_amount: number;
  spent_txid: string | null;
}

export interface DevnetTxInput {
  txid: string;
  vout: number;
  is_coinbase: boolean;
  prevout: DevnetTxOutput | null;
}

export interface DevnetTx {
  txid: string;
  hex: string;
  fee: number;
  vsize: number;
  weight: number;
  status: TxStatus;
  confirmations: number;
  inputs: DevnetTxInput[];
  outputs: DevnetTxOutput[];
  /** UNIT in minus UNIT out: what a cenotaph (or an edict to OP_RETURN) burnt. */
  unit_burned: number;
}

export interface DevnetTip extends ChainTip {
  time: number;
}

export type Db = Kysely<DevnetDatabase>;
export type Trx = DbTransaction<DevnetDatabase>;
export type OutputRow = DevnetDatabase['devnet_outputs'];

export const num = (v: number | string | bigint): number => Number(v);
export const big = (v: number | string | bigint): bigint => BigInt(v);

/** A bigint that the database stores as a plain integer (all devnet amounts stay under 2^53). */
export function dbInt(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < 0n) throw new Error(`amount out of range: ${v}`);
  return Number(v);
}

/** Runs work while no other process changes the devnet (several instances on one PostgreSQL). */
export type DevnetExclusive = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Serialises every state change: validation and its write happen as one step. Within the process
 * by a promise chain; across instances sharing the database, by `exclusive` inside it.
 */
export class Mutex {
  private last: Promise<unknown> = Promise.resolve();
  constructor(private readonly exclusive: DevnetExclusive = (work) => work()) {}
  run<T>(task: () => Promise<T>): Promise<T> {
    const work = () => this.exclusive(task);
    const result = this.last.then(work, work);
    this.last = result.catch(() => undefined);
    return result;
  }
}

/** The output script of an address of this network, or null when it does not parse. */
export function scriptOf(network: BTC_NETWORK, address: string): Uint8Array | null {
  try {
    return OutScript.encode(Address(network).decode(address));
  } catch {
    return null;
  }
}

export function addressOf(network: BTC_NETWORK, script: Uint8Array): string | null {
  if (isOpReturn(script)) return null;
  try {
    return Address(network).encode(OutScript.decode(script));
  } catch {
    return null;
  }
}

/** Writes a transaction, marks the outputs it spends, and adds its own outputs with their UNIT. */
export async function insertTx(
  trx: Trx,
  tx: Transaction,
  at: { fee: bigint; units: bigint[]; blockHeight: number | null; blockIndex: number | null },
  env: { now: () => number; network: BTC_NETWORK },
): Promise<void> {
  const txid = tx.id;
  const last = await trx
    .selectFrom('devnet_txs')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const seq = last?.seq === null || last?.seq === undefined ? 0 : num(last.seq) + 1;
  await trx
    .insertInto('devnet_txs')
    .values({
      txid,
      hex: tx.hex,
      seq,
      block_height: at.blockHeight,
      block_index: at.blockIndex,
      fee: dbInt(at.fee),
      vsize: tx.vsize,
      weight: tx.weight,
      first_seen: Math.floor(env.now() / 1000),
    })
    .execute();
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (input.index === 0xffffffff && hex.encode(input.txid!) === ZERO_HASH) continue;
    await trx
      .updateTable('devnet_outputs')
      .set({ spent_txid: txid, spent_vin: i })
      .where('txid', '=', hex.encode(input.txid!))
      .where('vout', '=', input.index!)
      .execute();
  }
  for (let vout = 0; vout < tx.outputsLength; vout++) {
    const out = tx.getOutput(vout);
    await trx
      .insertInto('devnet_outputs')
      .values({
        txid,
        vout,
        value: dbInt(out.amount!),
        script_hex: hex.encode(out.script!),
        address: addressOf(env.network, out.script!),
        unit_amount: dbInt(at.units[vout] ?? 0n),
        spent_txid: null,
        spent_vin: null,
      })
      .execute();
  }
}

/** The faucet's key and output: genesis pays it, every coinbase refills it, fund() spends it. */
export interface DevnetFaucet {
  secret: Uint8Array;
  script: Uint8Array;
  address: string;
}
