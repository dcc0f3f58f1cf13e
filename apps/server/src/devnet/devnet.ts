// The embedded Bitcoin network: a UTXO set, a mempool and blocks of real transactions, kept in the
// app's database so a restart keeps the chain. Every submitted transaction is checked like a node
// would (policy.ts, signatures by '@unit/bitcoin') and its UNIT balances are carried output by output.
import type { Kysely, Transaction as DbTransaction } from 'kysely';
import { hex } from '@scure/base';
import { Address, OutScript, p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { encodeRunestone, parseSpacedRune } from '@unit/bitcoin';
import {
  MAX_REPLACEMENT_EVICTIONS,
  replacementRefusal,
  signalsReplaceability,
  type AddressStatsDto,
  type FeeAndSize,
  type RecommendedFeesDto,
  type UnitOutputDto,
  type UtxoDto,
} from '@unit/protocol';
import type { ChainOutput, ChainTip, TxStatus } from '../chain/port';
import type { EsploraPrevout, EsploraTx } from '../chain/esplora-types';
import { blockHash, ZERO_HASH } from './block';
import { allocateUnit, checkSignatures, type Prevout } from './checks';
import { recommendedFees } from './fees';
import {
  checkAmounts,
  checkShape,
  decodeRawTx,
  isOpReturn,
  parseStoredTx,
  REJECT,
  refuse,
} from './policy';
import type { DevnetDatabase } from './tables';

export const DEFAULT_BLOCK_INTERVAL_MS = 10_000;
const SATS_PER_BTC = 100_000_000n;
/** The faucet's genesis allowance; coinbases refill it afterwards. */
const GENESIS_FAUCET_SATS = 1_000n * SATS_PER_BTC;
const DEFAULT_GUARDIAN_FUNDING_SATS = 10n * SATS_PER_BTC;
/** 1,000,000,000 UNIT in hundredths (divisibility 2: one rune unit is one hundredth). */
const DEFAULT_UNIT_SUPPLY = 100_000_000_000n;
/** UNIT postage of the treasury output (CONSTANTS.md UNIT postage). */
const TREASURY_POSTAGE_SATS = 10_000n;
/** How many treasury UNIT outputs genesis creates: how many issues can be reserved at once. */
const TREASURY_OUTPUTS = 8;
const GENESIS_ETCHING_FEE_SATS = 10_000n;
const FAUCET_FEE_RATE = 2n;
/** Mainnet's schedule: at 10 s blocks the first halving is weeks away, so the faucet never dries. */
const subsidy = (height: number): bigint =>
  (50n * SATS_PER_BTC) >> BigInt(Math.floor(height / 210_000));

export const UNIT_RUNE_NAME = 'UNIT•RUNE•TOKEN';
export const UNIT_RUNE_SYMBOL = '¤';

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
  /** Faucet key; random (and stored) on first start when not given. */
  faucetSecret?: Uint8Array;
  unitSupply?: bigint;
  /** Cross-process lock around every write; none needed when one process owns the database. */
  exclusive?: DevnetExclusive;
}

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

type Db = Kysely<DevnetDatabase>;
type Trx = DbTransaction<DevnetDatabase>;
type OutputRow = DevnetDatabase['devnet_outputs'];

const num = (v: number | string | bigint): number => Number(v);
/** A fee rate as Core's reject reasons print it: BTC/kvB. */
const rateText = (fee: bigint, vsize: number): string => (Number(fee) / vsize / 100_000).toFixed(8);
const big = (v: number | string | bigint): bigint => BigInt(v);

/** A bigint that the database stores as a plain integer (all devnet amounts stay under 2^53). */
function dbInt(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < 0n) throw new Error(`amount out of range: ${v}`);
  return Number(v);
}

/** Runs work while no other process changes the devnet (several instances on one PostgreSQL). */
export type DevnetExclusive = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * Serialises every state change: validation and its write happen as one step. Within the process
 * by a promise chain; across instances sharing the database, by `exclusive` inside it.
 */
class Mutex {
  private last: Promise<unknown> = Promise.resolve();
  constructor(private readonly exclusive: DevnetExclusive = (work) => work()) {}
  run<T>(task: () => Promise<T>): Promise<T> {
    const work = () => this.exclusive(task);
    const result = this.last.then(work, work);
    this.last = result.catch(() => undefined);
    return result;
  }
}

function scriptNum(n: number): Uint8Array {
  const bytes: number[] = [];
  let v = n;
  while (v > 0) {
    bytes.push(v & 0xff);
    v = Math.floor(v / 256);
  }
  if (bytes.length > 0 && (bytes[bytes.length - 1]! & 0x80) !== 0) bytes.push(0);
  return Uint8Array.from(bytes);
}

/** A coinbase: BIP34 height in the scriptSig, one output to the faucet. */
function coinbaseTx(height: number, faucetScript: Uint8Array, amount: bigint): Transaction {
  const tx = new Transaction({ allowUnknownInputs: true, allowUnknownOutputs: true });
  tx.addOutput({ script: faucetScript, amount });
  const heightPush = scriptNum(height);
  const scriptSig = new Uint8Array([
    heightPush.length,
    ...heightPush,
    0x04,
    ...hex.decode('756e6974'),
  ]);
  tx.addInput({
    txid: new Uint8Array(32),
    index: 0xffffffff,
    finalScriptSig: scriptSig,
    sequence: 0xffffffff,
  });
  return tx;
}

export class Devnet {
  readonly network: BTC_NETWORK;
  readonly blockIntervalMs: number;
  readonly unitRuneId: string;
  readonly faucetAddress: string;
  private readonly db: Db;
  private readonly now: () => number;
  private readonly faucetSecret: Uint8Array;
  private readonly faucetScript: Uint8Array;
  private readonly mutex: Mutex;
  private readonly listeners = new Set<(tip: DevnetTip) => void>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(init: {
    db: Db;
    network: BTC_NETWORK;
    blockIntervalMs: number;
    now: () => number;
    faucetSecret: Uint8Array;
    unitRuneId: string;
    exclusive?: DevnetExclusive;
  }) {
    this.mutex = new Mutex(init.exclusive);
    this.db = init.db;
    this.network = init.network;
    this.blockIntervalMs = init.blockIntervalMs;
    this.now = init.now;
    this.faucetSecret = init.faucetSecret;
    this.unitRuneId = init.unitRuneId;
    const payment = p2wpkh(secp256k1.getPublicKey(init.faucetSecret, true), init.network);
    this.faucetScript = payment.script;
    this.faucetAddress = payment.address!;
  }

  // ---- block timer ----

  /** Starts mining a block every blockIntervalMs (no-op when the interval is 0). */
  start(): void {
    if (this.timer !== null || this.blockIntervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.mine(1).catch(() => undefined);
    }, this.blockIntervalMs);
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
    const hashes = await this.mutex.run(async () => {
      const mined: string[] = [];
      for (let i = 0; i < n; i++)
        mined.push(await this.db.transaction().execute((trx) => this.mineBlock(trx)));
      return mined;
    });
    const tip = await this.tip();
    for (const listener of this.listeners) {
      try {
        listener(tip);
      } catch {
        // A failing listener must not undo or hide a block that is already mined.
      }
    }
    return hashes;
  }

  /** Validates and accepts a raw transaction into the mempool; refusals throw BroadcastError. */
  broadcast(rawHex: string): Promise<string> {
    return this.mutex.run(() => this.accept(rawHex));
  }

  /** Sends sats from the faucet to an address (a real signed transaction); returns its txid. */
  fund(address: string, sats: bigint | number): Promise<string> {
    const amount = BigInt(sats);
    const script = OutScript.encode(Address(this.network).decode(address));
    return this.mutex.run(async () => {
      const utxos = await this.db
        .selectFrom('devnet_outputs')
        .select(['txid', 'vout', 'value'])
        .where('script_hex', '=', hex.encode(this.faucetScript))
        .where('spent_txid', 'is', null)
        .where('unit_amount', '=', 0)
        .orderBy('value', 'desc')
        .execute();
      const tx = new Transaction();
      tx.addOutput({ script, amount });
      let total = 0n;
      for (const utxo of utxos) {
        tx.addInput({
          txid: utxo.txid,
          index: utxo.vout,
          witnessUtxo: { script: this.faucetScript, amount: big(utxo.value) },
        });
        total += big(utxo.value);
        // A P2WPKH input and two outputs: ~69 vB per input plus ~75 vB; be generous.
        if (total >= amount + FAUCET_FEE_RATE * BigInt(100 + 70 * tx.inputsLength)) break;
      }
      const fee = FAUCET_FEE_RATE * BigInt(100 + 70 * tx.inputsLength);
      const change = total - amount - fee;
      if (change < 0n) throw new Error('the faucet cannot cover this amount');
      if (change >= 546n) tx.addOutput({ script: this.faucetScript, amount: change });
      tx.sign(this.faucetSecret);
      tx.finalize();
      return this.accept(tx.hex);
    });
  }

  private async accept(rawHex: string): Promise<string> {
    const tx = decodeRawTx(rawHex);
    checkShape(tx);
    const txid = tx.id;
    const known = await this.db
      .selectFrom('devnet_txs')
      .select('block_height')
      .where('txid', '=', txid)
      .executeTakeFirst();
    if (known) refuse(known.block_height === null ? REJECT.inMempool : REJECT.inChain);

    const prevouts: Prevout[] = [];
    const inputUnits: bigint[] = [];
    /** Mempool transactions that spend one of our inputs: candidates for replacement. */
    const conflicts = new Set<string>();
    let valueIn = 0n;
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const row = await this.db
        .selectFrom('devnet_outputs')
        .selectAll()
        .where('txid', '=', hex.encode(input.txid!))
        .where('vout', '=', input.index!)
        .executeTakeFirst();
      if (!row) return refuse(REJECT.missingOrSpent);
      if (row.spent_txid !== null) {
        const spender = await this.db
          .selectFrom('devnet_txs')
          .select('block_height')
          .where('txid', '=', row.spent_txid)
          .executeTakeFirstOrThrow();
        if (spender.block_height !== null) refuse(REJECT.missingOrSpent);
        conflicts.add(row.spent_txid);
      }
      prevouts.push({ script: hex.decode(row.script_hex), amount: big(row.value) });
      inputUnits.push(big(row.unit_amount));
      valueIn += big(row.value);
    }
    let valueOut = 0n;
    for (let i = 0; i < tx.outputsLength; i++) valueOut += tx.getOutput(i).amount!;
    const fee = checkAmounts(valueIn, valueOut, tx.vsize);
    const evicted = conflicts.size > 0 ? await this.replaceable(tx, fee, conflicts) : [];
    checkSignatures(tx, prevouts);
    const units = allocateUnit(tx, inputUnits, this.unitRuneId);

    await this.db.transaction().execute(async (trx) => {
      if (evicted.length > 0) await this.evict(trx, evicted, txid);
      await this.insertTx(trx, tx, { fee, units, blockHeight: null, blockIndex: null });
    });
    return txid;
  }

  /**
   * BIP-125: the mempool transactions `tx` would replace (those spending its inputs, and all their
   * descendants), or a refusal with Bitcoin Core's reject reason. Every directly replaced
   * transaction must signal (rule 1), the replacement may add no unconfirmed input (rule 2), pays at
   * least their fees (rule 3) plus the incremental relay fee for its own size (rule 4), at a higher
   * fee rate, and evicts at most 100 transactions (rule 5).
   */
  private async replaceable(
    tx: Transaction,
    fee: bigint,
    conflicts: Set<string>,
  ): Promise<string[]> {
    const txid = tx.id;
    const rows = await this.db
      .selectFrom('devnet_txs')
      .select(['txid', 'hex', 'fee', 'vsize'])
      .where('txid', 'in', [...conflicts])
      .execute();
    const direct: FeeAndSize[] = [];
    const parentsOfConflicts = new Set<string>();
    for (const row of rows) {
      const old = parseStoredTx(row.hex);
      const sequences: number[] = [];
      for (let i = 0; i < old.inputsLength; i++) {
        const input = old.getInput(i);
        sequences.push(input.sequence ?? 0xffffffff);
        parentsOfConflicts.add(hex.encode(input.txid!));
      }
      if (!signalsReplaceability(sequences)) refuse(REJECT.mempoolConflict);
      direct.push({ fee: big(row.fee), vsize: num(row.vsize) });
    }
    // Descendants: whatever spends an output of an evicted transaction, transitively.
    const evicted = new Set(conflicts);
    let frontier = [...conflicts];
    while (frontier.length > 0) {
      const children = await this.db
        .selectFrom('devnet_outputs')
        .select('spent_txid')
        .distinct()
        .where('txid', 'in', frontier)
        .where('spent_txid', 'is not', null)
        .execute();
      frontier = [];
      for (const { spent_txid: child } of children) {
        if (child === null || evicted.has(child)) continue;
        evicted.add(child);
        frontier.push(child);
      }
      if (evicted.size > MAX_REPLACEMENT_EVICTIONS)
        refuse(`too many potential replacements, rejecting replacement ${txid}`);
    }
    for (let i = 0; i < tx.inputsLength; i++) {
      const parent = hex.encode(tx.getInput(i).txid!);
      if (evicted.has(parent)) refuse(REJECT.spendsConflicting);
      if (parentsOfConflicts.has(parent)) continue;
      const status = await this.txStatus(parent);
      if (status && !status.confirmed) refuse(REJECT.addsUnconfirmed);
    }
    const all = await this.db
      .selectFrom('devnet_txs')
      .select(['fee', 'vsize'])
      .where('txid', 'in', [...evicted])
      .execute();
    const refusal = replacementRefusal(
      { fee, vsize: tx.vsize },
      direct,
      all.map((row) => ({ fee: big(row.fee), vsize: num(row.vsize) })),
    );
    if (refusal?.rule === 'feerate') {
      const old = direct[refusal.conflict]!;
      refuse(
        `insufficient fee, rejecting replacement ${txid}; new feerate ${rateText(fee, tx.vsize)} <= old feerate ${rateText(old.fee, old.vsize)}`,
      );
    }
    if (refusal?.rule === 'fee')
      refuse(
        `insufficient fee, rejecting replacement ${txid}, less fees than conflicting txs; ${fee} < ${refusal.needed}`,
      );
    if (refusal?.rule === 'relay')
      refuse(
        `insufficient fee, rejecting replacement ${txid}, not enough additional fees to relay; ${fee} < ${refusal.needed}`,
      );
    return [...evicted];
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
    const time = Math.floor(this.now() / 1000);
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
      const row = await this.db
        .selectFrom('devnet_replaced')
        .select('replaced_by')
        .where('txid', '=', current)
        .executeTakeFirst();
      if (!row) return current === txid ? null : current;
      current = row.replaced_by;
    }
    return current;
  }

  private async insertTx(
    trx: Trx,
    tx: Transaction,
    at: { fee: bigint; units: bigint[]; blockHeight: number | null; blockIndex: number | null },
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
        first_seen: Math.floor(this.now() / 1000),
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
          address: this.addressOf(out.script!),
          unit_amount: dbInt(at.units[vout] ?? 0n),
          spent_txid: null,
          spent_vin: null,
        })
        .execute();
    }
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
    const coinbase = coinbaseTx(height, this.faucetScript, subsidy(height) + fees);
    const time = Math.max(Math.floor(this.now() / 1000), tip ? num(tip.time) + 1 : 0);
    const txids = [coinbase.id, ...mempool.map((t) => t.txid), ...extra.map((t) => t.id)];
    const hash = blockHash(prevHash, txids, time);
    await trx
      .insertInto('devnet_blocks')
      .values({ height, hash, prev_hash: prevHash, time, tx_count: txids.length })
      .execute();
    await this.insertTx(trx, coinbase, { fee: 0n, units: [], blockHeight: height, blockIndex: 0 });
    for (let i = 0; i < mempool.length; i++) {
      await trx
        .updateTable('devnet_txs')
        .set({ block_height: height, block_index: i + 1 })
        .where('txid', '=', mempool[i]!.txid)
        .execute();
    }
    for (let i = 0; i < extra.length; i++) {
      await this.insertTx(trx, extra[i]!, {
        fee: GENESIS_ETCHING_FEE_SATS,
        units: extraUnits[i] ?? [],
        blockHeight: height,
        blockIndex: mempool.length + 1 + i,
      });
    }
    return hash;
  }

  /**
   * Genesis: block 0 pays the faucet's allowance; block 1 holds the UNIT etching, a faucet-signed
   * transaction whose runestone premines the whole supply over the treasury outputs (and funds the
   * guardian). The rune id is therefore 1:1, never the 0:0 that edicts reserve for "this etching".
   */
  async genesis(opts: {
    treasuryScript: Uint8Array;
    guardianScript?: Uint8Array;
    guardianFundingSats: bigint;
    unitSupply: bigint;
  }): Promise<void> {
    await this.mutex.run(() =>
      this.db.transaction().execute(async (trx) => {
        await this.mineBlockWithAllowance(trx);
        const [first] = await trx
          .selectFrom('devnet_outputs')
          .select(['txid', 'vout', 'value'])
          .where('script_hex', '=', hex.encode(this.faucetScript))
          .execute();
        if (!first) throw new Error('genesis allowance missing');
        const etching = new Transaction({ allowUnknownOutputs: true });
        etching.addInput({
          txid: first.txid,
          index: first.vout,
          witnessUtxo: { script: this.faucetScript, amount: big(first.value) },
        });
        // The premine is split over several treasury outputs: each open or borrow locks one for
        // its 30 s reservation, so one output alone would make concurrent issues wait in line.
        for (let i = 0; i < TREASURY_OUTPUTS; i++)
          etching.addOutput({ script: opts.treasuryScript, amount: TREASURY_POSTAGE_SATS });
        const share = opts.unitSupply / BigInt(TREASURY_OUTPUTS);
        const { rune, spacers } = parseSpacedRune(UNIT_RUNE_NAME);
        etching.addOutput({
          script: encodeRunestone({
            // 0:0 names the rune this transaction etches; the remainder goes to the pointer.
            edicts: Array.from({ length: TREASURY_OUTPUTS - 1 }, (_, i) => ({
              id: { block: 0n, tx: 0 },
              amount: share,
              output: i + 1,
            })),
            pointer: 0,
            etching: {
              rune,
              spacers,
              divisibility: 2,
              symbol: UNIT_RUNE_SYMBOL,
              premine: opts.unitSupply,
            },
          }),
          amount: 0n,
        });
        let spent = TREASURY_POSTAGE_SATS * BigInt(TREASURY_OUTPUTS) + GENESIS_ETCHING_FEE_SATS;
        if (opts.guardianScript) {
          etching.addOutput({ script: opts.guardianScript, amount: opts.guardianFundingSats });
          spent += opts.guardianFundingSats;
        }
        etching.addOutput({ script: this.faucetScript, amount: big(first.value) - spent });
        etching.sign(this.faucetSecret);
        etching.finalize();
        await this.mineBlock(trx, [etching], [allocateUnit(etching, [], this.unitRuneId, true)]);
        await trx
          .insertInto('devnet_meta')
          .values({ key: 'unit_rune_id', value: this.unitRuneId })
          .execute();
      }),
    );
  }

  private async mineBlockWithAllowance(trx: Trx): Promise<void> {
    const coinbase = coinbaseTx(0, this.faucetScript, GENESIS_FAUCET_SATS);
    const time = Math.floor(this.now() / 1000);
    const hash = blockHash(ZERO_HASH, [coinbase.id], time);
    await trx
      .insertInto('devnet_blocks')
      .values({ height: 0, hash, prev_hash: ZERO_HASH, time, tx_count: 1 })
      .execute();
    await this.insertTx(trx, coinbase, { fee: 0n, units: [], blockHeight: 0, blockIndex: 0 });
  }

  // ---- reads ----

  async tip(): Promise<DevnetTip> {
    const row = await this.db
      .selectFrom('devnet_blocks')
      .select(['height', 'hash', 'time'])
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return { height: num(row.height), hash: row.hash, time: num(row.time) };
  }

  async blockHashAt(height: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('devnet_blocks')
      .select('hash')
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash ?? null;
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

  async txHex(txid: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .select('hex')
      .where('txid', '=', txid)
      .executeTakeFirst();
    return row?.hex ?? null;
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

  private async statusAt(height: number | null): Promise<TxStatus> {
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

  private toTxOutput(row: OutputRow): DevnetTxOutput {
    return {
      vout: row.vout,
      value: num(row.value),
      script_hex: row.script_hex,
      address: row.address,
      unit_amount: num(row.unit_amount),
      spent_txid: row.spent_txid,
    };
  }

  async getTx(txid: string): Promise<DevnetTx | null> {
    const row = await this.db
      .selectFrom('devnet_txs')
      .selectAll()
      .where('txid', '=', txid)
      .executeTakeFirst();
    if (!row) return null;
    const tx = parseStoredTx(row.hex);
    const inputs: DevnetTxInput[] = [];
    let unitIn = 0n;
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      const prevTxid = hex.encode(input.txid!);
      const coinbase = input.index === 0xffffffff && prevTxid === ZERO_HASH;
      const prev = coinbase
        ? undefined
        : await this.db
            .selectFrom('devnet_outputs')
            .selectAll()
            .where('txid', '=', prevTxid)
            .where('vout', '=', input.index!)
            .executeTakeFirst();
      if (prev) unitIn += big(prev.unit_amount);
      inputs.push({
        txid: prevTxid,
        vout: input.index!,
        is_coinbase: coinbase,
        prevout: prev ? this.toTxOutput(prev) : null,
      });
    }
    const outputs = (
      await this.db
        .selectFrom('devnet_outputs')
        .selectAll()
        .where('txid', '=', txid)
        .orderBy('vout')
        .execute()
    ).map((o) => this.toTxOutput(o));
    const unitOut = outputs.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n);
    const height = row.block_height === null ? null : num(row.block_height);
    const tip = await this.tip();
    return {
      txid,
      hex: row.hex,
      fee: num(row.fee),
      vsize: num(row.vsize),
      weight: num(row.weight),
      status: await this.statusAt(height),
      confirmations: height === null ? 0 : tip.height - height + 1,
      inputs,
      outputs,
      unit_burned: Number(unitIn > unitOut ? unitIn - unitOut : 0n),
    };
  }

  /** The transaction as esplora's GET /tx/:txid answers it. */
  async esploraTx(txid: string): Promise<EsploraTx | null> {
    const dtx = await this.getTx(txid);
    if (!dtx) return null;
    const tx = parseStoredTx(dtx.hex);
    const prevout = (o: DevnetTxOutput): EsploraPrevout => ({
      scriptpubkey: o.script_hex,
      scriptpubkey_type: scriptType(hex.decode(o.script_hex)),
      ...(o.address !== null ? { scriptpubkey_address: o.address } : {}),
      value: o.value,
    });
    return {
      txid,
      version: tx.version,
      locktime: tx.lockTime,
      vin: dtx.inputs.map((input, i) => {
        const raw = tx.getInput(i);
        return {
          txid: input.txid,
          vout: input.vout,
          prevout: input.prevout ? prevout(input.prevout) : null,
          scriptsig: hex.encode(raw.finalScriptSig ?? new Uint8Array()),
          witness: (raw.finalScriptWitness ?? []).map((w) => hex.encode(w)),
          is_coinbase: input.is_coinbase,
          sequence: raw.sequence ?? 0xffffffff,
        };
      }),
      vout: dtx.outputs.map(prevout),
      size: hex.decode(dtx.hex).length,
      weight: dtx.weight,
      fee: dtx.fee,
      status: dtx.status,
    };
  }

  async output(txid: string, vout: number): Promise<ChainOutput | null> {
    const row = await this.db
      .selectFrom('devnet_outputs')
      .selectAll()
      .where('txid', '=', txid)
      .where('vout', '=', vout)
      .executeTakeFirst();
    if (!row) return null;
    return {
      txid: row.txid,
      vout: row.vout,
      value: num(row.value),
      script_hex: row.script_hex,
      address: row.address,
      unit_amount: num(row.unit_amount),
      spent: row.spent_txid !== null,
      status: (await this.txStatus(row.txid)) ?? { confirmed: false },
    };
  }

  /** Who spent an output, as esplora's GET /tx/:txid/outspend/:vout answers it. */
  async outspend(
    txid: string,
    vout: number,
  ): Promise<{ spent: boolean; txid?: string; vin?: number; status?: TxStatus } | null> {
    const row = await this.db
      .selectFrom('devnet_outputs')
      .select(['spent_txid', 'spent_vin'])
      .where('txid', '=', txid)
      .where('vout', '=', vout)
      .executeTakeFirst();
    if (!row) return null;
    if (row.spent_txid === null) return { spent: false };
    const status = await this.txStatus(row.spent_txid);
    return {
      spent: true,
      txid: row.spent_txid,
      vin: row.spent_vin ?? 0,
      status: status ?? { confirmed: false },
    };
  }

  /**
   * Every output ever paid to the address, oldest first, with where it was created and whether its
   * spender is confirmed: one query, since the faucet's address collects a coinbase every block.
   */
  private async addressRows(address: string) {
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

  /** The output script of an address of this network, or null when it does not parse. */
  scriptOf(address: string): Uint8Array | null {
    try {
      return OutScript.encode(Address(this.network).decode(address));
    } catch {
      return null;
    }
  }

  addressOf(script: Uint8Array): string | null {
    if (isOpReturn(script)) return null;
    try {
      return Address(this.network).encode(OutScript.decode(script));
    } catch {
      return null;
    }
  }
}

function scriptType(script: Uint8Array): string {
  if (isOpReturn(script)) return 'op_return';
  try {
    const type = OutScript.decode(script).type;
    const names: Record<string, string> = {
      wpkh: 'v0_p2wpkh',
      wsh: 'v0_p2wsh',
      tr: 'v1_p2tr',
      sh: 'p2sh',
      pkh: 'p2pkh',
      pk: 'p2pk',
    };
    return names[type] ?? 'unknown';
  } catch {
    return 'unknown';
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
  let secretHex = meta.get('faucet_secret');
  if (secretHex === undefined) {
    secretHex = hex.encode(opts.faucetSecret ?? secp256k1.utils.randomSecretKey());
    await db.insertInto('devnet_meta').values({ key: 'faucet_secret', value: secretHex }).execute();
  }
  const devnet = new Devnet({
    db,
    network,
    blockIntervalMs: opts.blockIntervalMs ?? DEFAULT_BLOCK_INTERVAL_MS,
    now,
    faucetSecret: hex.decode(secretHex),
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
