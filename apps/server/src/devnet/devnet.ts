// The embedded Bitcoin network: a UTXO set, a mempool and blocks of real transactions, kept in the
// app's database so a restart keeps the chain. `Devnet` is the one surface the app and the routes
// use; each concern lives in a file of its own:
//   mempool.ts (+ policy, locks, chain-limits, checks, replacement)  what a node would accept
//   miner.ts (+ genesis)  the block timer, mining and genesis;  block-store.ts  tip and confirmation
//   tx-views.ts, chain-views.ts, address-index.ts  the read views esplora, ord and the app ask
//   store.ts  the shared shapes, the write lock and the one writer of a transaction's rows
import type { Kysely } from 'kysely';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { AddressIndex } from './address-index';
import { BlockStore } from './block-store';
import { ChainViews } from './chain-views';
import { DEFAULT_GUARDIAN_FUNDING_SATS, DEFAULT_UNIT_SUPPLY, type GenesisOptions } from './genesis';
import { faucetSecretOf } from './faucet-key';
import { Mempool } from './mempool';
import { Miner } from './miner';
import {
  addressOf,
  Mutex,
  scriptOf,
  type Db,
  type DevnetExclusive,
  type DevnetFaucet,
  type DevnetTip,
} from './store';
import { TxViews } from './tx-views';

export { UNIT_RUNE_NAME, UNIT_RUNE_SYMBOL } from './genesis';
export type { DevnetExclusive, DevnetTip, DevnetTx, DevnetTxInput, DevnetTxOutput } from './store';

export const DEFAULT_BLOCK_INTERVAL_MS = 10_000;

export interface DevnetOptions<DB> {
  db: Kysely<DB>;
  /** Script of the treasury output that receives the whole UNIT premine at genesis. */
  treasuryScript: Uint8Array;
  network?: BTC_NETWORK;
  /** Block interval of the timer started by start(); 0 mines only on demand. Default 10 s. */
  blockIntervalMs?: number;
  /** Clock in milliseconds (tests pin it). */
  now?: () => number;
  /** Funded at genesis when given, so the guardian can pay fees from block one. */
  guardianScript?: Uint8Array;
  guardianFundingSats?: bigint;
  /** Faucet key, when fixed by the caller (tests); else `faucetKeyFile`'s (faucet-key.ts). */
  faucetSecret?: Uint8Array;
  /** The faucet key's file (0600), made at first start. */
  faucetKeyFile?: string;
  unitSupply?: bigint;
  /** Cross-process lock around every write; none needed when one process owns the database. */
  exclusive?: DevnetExclusive;
}

export class Devnet {
  readonly network: BTC_NETWORK;
  readonly blockIntervalMs: number;
  readonly unitRuneId: string;
  readonly faucetAddress: string;
  /**
   * Devnet control (POST /api/devnet/chain): while false, the server's own chain port answers as a
   * chain service that is down (devnet-chain.ts); the devnet's HTTP routes keep answering.
   */
  chainAvailable = true;
  private readonly blocks: BlockStore;
  private readonly miner: Miner;
  private readonly mempool: Mempool;
  private readonly txs: TxViews;
  private readonly chain: ChainViews;
  private readonly addresses: AddressIndex;

  constructor(init: {
    db: Db;
    network: BTC_NETWORK;
    blockIntervalMs: number;
    now: () => number;
    faucetSecret: Uint8Array;
    unitRuneId: string;
    exclusive?: DevnetExclusive;
  }) {
    const { db, network, now, unitRuneId } = init;
    this.network = network;
    this.blockIntervalMs = init.blockIntervalMs;
    this.unitRuneId = unitRuneId;
    const payment = p2wpkh(secp256k1.getPublicKey(init.faucetSecret, true), network);
    const faucet: DevnetFaucet = {
      secret: init.faucetSecret,
      script: payment.script,
      address: payment.address!,
    };
    this.faucetAddress = faucet.address;
    // One lock for the mempool's and the miner's writes: validation and its write are one step.
    const mutex = new Mutex(init.exclusive);
    this.blocks = new BlockStore(db);
    const env = { db, blocks: this.blocks, mutex, network, now, faucet, unitRuneId };
    this.miner = new Miner({ ...env, blockIntervalMs: init.blockIntervalMs });
    this.mempool = new Mempool(env);
    this.txs = new TxViews(db, this.blocks);
    this.chain = new ChainViews(db, this.blocks);
    this.addresses = new AddressIndex(db);
  }

  // ---- blocks: the timer, mining, genesis (miner.ts) and the block store (block-store.ts) ----

  /** Starts mining a block every blockIntervalMs (no-op when the interval is 0). */
  start(): void {
    this.miner.start();
  }
  stop(): void {
    this.miner.stop();
  }
  get running(): boolean {
    return this.miner.running;
  }
  onBlock(listener: (tip: DevnetTip) => void): () => void {
    return this.miner.onBlock(listener);
  }
  /** Mines n blocks holding the whole mempool; returns their hashes. */
  mine(n = 1): Promise<string[]> {
    return this.miner.mine(n);
  }
  /** Genesis: block 0 pays the faucet's allowance; block 1 etches and premines UNIT. */
  genesis(opts: GenesisOptions): Promise<void> {
    return this.miner.genesis(opts);
  }
  tip(): Promise<DevnetTip> {
    return this.blocks.tip();
  }
  /** BIP-113's median time past of the block at `height`: the median of it and the 10 before. */
  medianTimePastAt(height: number): Promise<number> {
    return this.blocks.medianTimePastAt(height);
  }
  /** The txid at `index` in the block at `height` (0 is the coinbase), or null. */
  txidAt(height: number, index: number): Promise<string | null> {
    return this.blocks.txidAt(height, index);
  }
  blockTxids(hash: string): Promise<string[] | null> {
    return this.blocks.blockTxids(hash);
  }
  blockHashAt(height: number): Promise<string | null> {
    return this.blocks.blockHashAt(height);
  }
  txStatus(txid: string) {
    return this.blocks.txStatus(txid);
  }

  // ---- the mempool (mempool.ts) ----

  /** Validates and accepts a raw transaction into the mempool; refusals throw BroadcastError. */
  broadcast(rawHex: string): Promise<string> {
    return this.mempool.broadcast(rawHex);
  }
  /** Sends sats from the faucet to an address (a real signed transaction); returns its txid. */
  fund(address: string, sats: bigint | number): Promise<string> {
    return this.mempool.fund(address, sats);
  }
  /** The transaction that replaced `txid` in the mempool (BIP-125), following a chain of replacements. */
  replacedBy(txid: string): Promise<string | null> {
    return this.mempool.replacedBy(txid);
  }

  // ---- read views: transactions and outputs (tx-views.ts) ----

  txHex(txid: string) {
    return this.txs.txHex(txid);
  }
  getTx(txid: string) {
    return this.txs.getTx(txid);
  }
  /** The transaction as esplora's GET /tx/:txid answers it. */
  esploraTx(txid: string) {
    return this.txs.esploraTx(txid);
  }
  output(txid: string, vout: number) {
    return this.txs.output(txid, vout);
  }
  /** GET /tx/:txid/outspends: the spending status of every output, in order; null when unknown. */
  outspends(txid: string) {
    return this.txs.outspends(txid);
  }
  /** Who spent an output, as esplora's GET /tx/:txid/outspend/:vout answers it. */
  outspend(txid: string, vout: number) {
    return this.txs.outspend(txid, vout);
  }

  // ---- read views: blocks and the mempool as lists (chain-views.ts) ----

  /** GET /blocks[/:start_height]: the 10 blocks from `start` (the tip when absent) down. */
  esploraBlocks(start?: number) {
    return this.chain.esploraBlocks(start);
  }
  mempoolStats() {
    return this.chain.mempoolStats();
  }
  mempoolRecent() {
    return this.chain.mempoolRecent();
  }
  /** Fee rates (sat/vB) of what waits in the mempool, feeding the mempool.space-style estimate. */
  fees() {
    return this.chain.fees();
  }
  mempoolTxids() {
    return this.chain.mempoolTxids();
  }

  // ---- read views: the address index (address-index.ts) ----

  addressRows(address: string) {
    return this.addresses.addressRows(address);
  }
  addressOutputs(address: string) {
    return this.addresses.addressOutputs(address);
  }
  utxos(address: string) {
    return this.addresses.utxos(address);
  }
  paymentUtxos(address: string) {
    return this.addresses.paymentUtxos(address);
  }
  unitOutputs(address: string) {
    return this.addresses.unitOutputs(address);
  }
  addressStats(address: string) {
    return this.addresses.addressStats(address);
  }
  addressTxids(address: string) {
    return this.addresses.addressTxids(address);
  }
  /** The output script of an address of this network, or null when it does not parse. */
  scriptOf(address: string): Uint8Array | null {
    return scriptOf(this.network, address);
  }
  addressOf(script: Uint8Array): string | null {
    return addressOf(this.network, script);
  }
}

/** Opens the devnet stored in db, creating genesis on first use. Run devnetMigrations first. */
export async function createDevnet<DB>(opts: DevnetOptions<DB>): Promise<Devnet> {
  const db = opts.db as unknown as Db;
  const network = opts.network ?? TEST_NETWORK;
  const now = opts.now ?? Date.now;
  const meta = new Map(
    (await db.selectFrom('devnet_meta').selectAll().execute()).map(
      (row) => [row.key, row.value] as const,
    ),
  );
  const faucetSecret = await faucetSecretOf(db, meta, {
    ...(opts.faucetSecret ? { given: opts.faucetSecret } : {}),
    ...(opts.faucetKeyFile ? { file: opts.faucetKeyFile } : {}),
  });
  const devnet = new Devnet({
    db,
    network,
    blockIntervalMs: opts.blockIntervalMs ?? DEFAULT_BLOCK_INTERVAL_MS,
    now,
    faucetSecret,
    unitRuneId: meta.get('unit_rune_id') ?? '1:1',
    ...(opts.exclusive ? { exclusive: opts.exclusive } : {}),
  });
  if (!meta.has('unit_rune_id')) {
    await devnet.genesis({
      treasuryScript: opts.treasuryScript,
      ...(opts.guardianScript ? { guardianScript: opts.guardianScript } : {}),
      guardianFundingSats: opts.guardianFundingSats ?? DEFAULT_GUARDIAN_FUNDING_SATS,
      unitSupply: opts.unitSupply ?? DEFAULT_UNIT_SUPPLY,
    });
  }
  return devnet;
}
