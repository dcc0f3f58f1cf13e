// The open validator's one view of the chain: any esplora-compatible service (`--chain`), read
// block by block. Every answer is hostile until checked (its shape, its size, the txid it names),
// and every call has its own time-out. Nothing of this app is read: no database, no key.
import { hex } from '@scure/base';
import * as z from 'zod';
import type { LedgerTx } from '@unit/bitcoin';

/** One read; a block of a few thousand transactions is read in parallel reads of this each. */
export const VALIDATOR_READ_TIMEOUT_MS = 15_000;
/** A transaction's JSON is a few KB; a block's txid list at most ~4 MB / 60 bytes of txids. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** Transactions read at once from the service. */
const PARALLEL_READS = 8;

const txidSchema = z.string().regex(/^[0-9a-f]{64}$/);
const scriptHex = z.string().regex(/^([0-9a-f]{2})*$/);
const output = z.object({ scriptpubkey: scriptHex, value: z.number().int().nonnegative() });
const esploraTx = z.object({
  txid: txidSchema,
  vin: z.array(
    z.object({
      txid: txidSchema,
      vout: z.number().int().nonnegative(),
      prevout: output.nullable().optional(),
      /** A settlement at the term is told by the leaf its witness reveals (ledger/replay.ts). */
      witness: z.array(scriptHex).max(1_000).optional(),
    }),
  ),
  vout: z.array(output),
});

/** What the follower reads; the esplora reader below, or an in-process chain in the benchmark. */
export interface BlockSource {
  tipHeight(): Promise<number>;
  /** The hash of the block at `height`, or null above the tip. */
  blockHash(height: number): Promise<string | null>;
  /** The block's transactions in block order. */
  blockTxs(hash: string): Promise<LedgerTx[]>;
}

export class EsploraBlockSource implements BlockSource {
  private readonly base: string;

  constructor(
    esplora: string,
    private readonly timeoutMs = VALIDATOR_READ_TIMEOUT_MS,
  ) {
    this.base = esplora.replace(/\/+$/, '');
  }

  private async get(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.base}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await res.text();
    if (text.length > MAX_ANSWER_BYTES) throw new Error(`${path}: the answer is too large`);
    if (res.status !== 200 && res.status !== 404)
      throw new Error(`${this.base}${path} answered HTTP ${res.status}`);
    return { status: res.status, text };
  }

  async tipHeight(): Promise<number> {
    const { status, text } = await this.get('/blocks/tip/height');
    const height = Number(text.trim());
    if (status !== 200 || !Number.isSafeInteger(height) || height < 0)
      throw new Error(`${this.base}/blocks/tip/height: not a height`);
    return height;
  }

  async blockHash(height: number): Promise<string | null> {
    const { status, text } = await this.get(`/block-height/${height}`);
    if (status === 404) return null;
    const hash = text.trim();
    if (!txidSchema.safeParse(hash).success) throw new Error(`/block-height/${height}: not a hash`);
    return hash;
  }

  async blockTxs(hash: string): Promise<LedgerTx[]> {
    const { status, text } = await this.get(`/block/${hash}/txids`);
    const ids = z.array(txidSchema).safeParse(status === 200 ? JSON.parse(text) : null);
    if (!ids.success) throw new Error(`/block/${hash}/txids: not a list of txids`);
    const txs: LedgerTx[] = new Array(ids.data.length);
    for (let start = 0; start < ids.data.length; start += PARALLEL_READS) {
      const batch = ids.data.slice(start, start + PARALLEL_READS);
      const read = await Promise.all(batch.map((id) => this.tx(id)));
      read.forEach((tx, i) => (txs[start + i] = tx));
    }
    return txs;
  }

  private async tx(id: string): Promise<LedgerTx> {
    const { status, text } = await this.get(`/tx/${id}`);
    const parsed = esploraTx.safeParse(status === 200 ? JSON.parse(text) : null);
    if (!parsed.success || parsed.data.txid !== id)
      throw new Error(`/tx/${id}: not that transaction`);
    const out = (o: z.infer<typeof output>) => ({
      script: hex.decode(o.scriptpubkey),
      value: BigInt(o.value),
    });
    return {
      txid: id,
      inputs: parsed.data.vin.map((vin) => ({
        txid: vin.txid,
        vout: vin.vout,
        prevout: vin.prevout ? out(vin.prevout) : null,
        ...(vin.witness ? { witness: vin.witness.map((w) => hex.decode(w)) } : {}),
      })),
      outputs: parsed.data.vout.map(out),
    };
  }
}
