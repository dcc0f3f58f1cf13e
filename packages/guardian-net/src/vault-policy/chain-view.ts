// A guardian's own view of the chain and of the app it serves: an esplora reader (`--chain`) for
// transactions and whether an output is spent, and the app's public routes (`--app`) for what the
// esplora API does not say: the UNIT an output holds (the runes routes) and the oracle's threshold
// hash of a (threshold, stamp). Every call has its own time-out, well under the decision's 4 s.
import { hex } from '@scure/base';
import * as z from 'zod';

/** One read; the policy reads in two parallel rounds, so both fit a decision's 4 s. */
export const CHAIN_READ_TIMEOUT_MS = 1_800;
/** An esplora transaction or a runes answer is a few KB; anything far larger is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface ChainTxOutput {
  script: Uint8Array;
  value: bigint;
  /** the address esplora names, when the script has one */
  address: string | null;
}

/** A whole transaction as the chain has it: what a speed-up's original is checked against. */
export interface ChainTx {
  /** raw hex, witnesses included */
  hex: string;
  confirmed: boolean;
  /** each input's prevout, in input order */
  prevouts: { script: Uint8Array; amount: bigint }[];
}

export interface OracleHashes {
  hashes: Uint8Array[];
  statements: unknown[];
}

/** What the policy reads; the esplora and app readers below, or a stand-in in a unit test. */
export interface ChainView {
  /** A transaction's outputs, or null when the chain does not know it. */
  txOutputs(txid: string): Promise<ChainTxOutput[] | null>;
  /** The txid that spends the output (in a block or the mempool), or null while it is unspent. */
  spentBy(txid: string, vout: number): Promise<string | null>;
  /** The whole transaction (hex, whether confirmed, its prevouts), or null when not known. */
  transaction(txid: string): Promise<ChainTx | null>;
  /** The UNIT (hundredths) the output holds, read from the app's runes routes. */
  unitAmount(address: string, txid: string, vout: number): Promise<bigint>;
  /**
   * The hash160s of the oracles' threshold secrets of (th, ts), in leaf order, with the oracles'
   * signed statements when the app gives them (network mode; oracle-hashes.ts checks them).
   */
  thresholdHashes(thCents: number, stamp: number): Promise<OracleHashes>;
  /** The chain's tip height: a new vault's term is checked against it (policy.ts). */
  tipHeight?(): Promise<number>;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

async function getText(url: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (text.length > MAX_ANSWER_BYTES) throw new Error(`${url}: answer too large`);
  return { status: res.status, text };
}

async function getJson<T>(url: string, schema: z.ZodType<T>, timeoutMs: number): Promise<T> {
  const { status, text } = await getText(url, timeoutMs);
  if (status !== 200) throw new Error(`${new URL(url).pathname}: HTTP ${status}`);
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${new URL(url).pathname}: unexpected answer`);
  return parsed.data;
}

const txid = z.string().regex(/^[0-9a-f]{64}$/);
const scriptHex = z.string().regex(/^([0-9a-f]{2})*$/);
const esploraTx = z.object({
  txid,
  vout: z.array(
    z.object({
      scriptpubkey: scriptHex,
      scriptpubkey_address: z.string().optional(),
      value: z.number().int().nonnegative(),
    }),
  ),
});
const outspend = z.object({ spent: z.boolean(), txid: txid.optional() });
const esploraFullTx = z.object({
  txid,
  status: z.object({ confirmed: z.boolean() }),
  vin: z.array(
    z.object({
      prevout: z
        .object({ scriptpubkey: scriptHex, value: z.number().int().nonnegative() })
        .nullable(),
    }),
  ),
});
const unitOutputs = z.array(
  z.object({ txid: z.string(), vout: z.number().int(), unit_amount: z.number().int() }),
);
const hash160Hex = z.string().regex(/^[0-9a-f]{40}$/);
const oracleQuote = z.object({
  threshold_hash: hash160Hex,
  threshold_hashes: z.array(hash160Hex).min(1).max(3).optional(),
  oracle_statements: z.array(z.unknown()).max(3).optional(),
});

export interface HttpChainViewOptions {
  /** esplora base URL, e.g. http://127.0.0.1:8080/esplora */
  esplora: string;
  /** the app's origin: its runes routes and the oracle's quote route */
  app: string;
  timeoutMs?: number;
}

/** The esplora API and the app's public routes over HTTP. */
export class HttpChainView implements ChainView {
  private readonly esplora: string;
  private readonly app: string;
  private readonly timeoutMs: number;

  constructor(o: HttpChainViewOptions) {
    this.esplora = trimSlash(o.esplora);
    this.app = trimSlash(o.app);
    this.timeoutMs = o.timeoutMs ?? CHAIN_READ_TIMEOUT_MS;
  }

  async txOutputs(id: string): Promise<ChainTxOutput[] | null> {
    if (!txid.safeParse(id).success) return null;
    const { status, text } = await getText(`${this.esplora}/tx/${id}`, this.timeoutMs);
    if (status === 404 || status === 400) return null;
    if (status !== 200) throw new Error(`esplora /tx: HTTP ${status}`);
    const parsed = esploraTx.safeParse(JSON.parse(text));
    if (!parsed.success || parsed.data.txid !== id)
      throw new Error('esplora /tx: unexpected answer');
    return parsed.data.vout.map((o) => ({
      script: hex.decode(o.scriptpubkey),
      value: BigInt(o.value),
      address: o.scriptpubkey_address ?? null,
    }));
  }

  async spentBy(id: string, vout: number): Promise<string | null> {
    if (!txid.safeParse(id).success) return null;
    const { status, text } = await getText(
      `${this.esplora}/tx/${id}/outspend/${vout}`,
      this.timeoutMs,
    );
    // An unknown transaction: its output is refused as missing from the chain (txOutputs).
    if (status === 404 || status === 400) return null;
    if (status !== 200) throw new Error(`esplora /outspend: HTTP ${status}`);
    const parsed = outspend.safeParse(JSON.parse(text));
    if (!parsed.success || (parsed.data.spent && !parsed.data.txid))
      throw new Error('esplora /outspend: unexpected answer');
    return parsed.data.spent ? parsed.data.txid! : null;
  }

  async transaction(id: string): Promise<ChainTx | null> {
    if (!txid.safeParse(id).success) return null;
    const [tx, raw] = await Promise.all([
      getText(`${this.esplora}/tx/${id}`, this.timeoutMs),
      getText(`${this.esplora}/tx/${id}/hex`, this.timeoutMs),
    ]);
    if (tx.status === 404 || raw.status === 404) return null;
    if (tx.status !== 200 || raw.status !== 200)
      throw new Error(`esplora /tx: HTTP ${tx.status === 200 ? raw.status : tx.status}`);
    const parsed = esploraFullTx.safeParse(JSON.parse(tx.text));
    const rawHex = raw.text.trim();
    if (!parsed.success || parsed.data.txid !== id || !/^([0-9a-f]{2})+$/.test(rawHex))
      throw new Error('esplora /tx: unexpected answer');
    const prevouts = parsed.data.vin.map((input) => {
      // Only a coinbase has no prevout; no vault transaction replaces one.
      if (!input.prevout) throw new Error('esplora /tx: an input without its prevout');
      return {
        script: hex.decode(input.prevout.scriptpubkey),
        amount: BigInt(input.prevout.value),
      };
    });
    return { hex: rawHex, confirmed: parsed.data.status.confirmed, prevouts };
  }

  async tipHeight(): Promise<number> {
    const { status, text } = await getText(`${this.esplora}/blocks/tip/height`, this.timeoutMs);
    if (status !== 200) throw new Error(`esplora /blocks/tip/height: HTTP ${status}`);
    const height = Number(text.trim());
    if (!/^\d{1,9}$/.test(text.trim()) || !Number.isSafeInteger(height))
      throw new Error('esplora /blocks/tip/height: unexpected answer');
    return height;
  }

  async unitAmount(address: string, id: string, vout: number): Promise<bigint> {
    const url = `${this.app}/runes/address/${encodeURIComponent(address)}/outputs`;
    const outputs = await getJson(url, unitOutputs, this.timeoutMs);
    return BigInt(outputs.find((o) => o.txid === id && o.vout === vout)?.unit_amount ?? 0);
  }

  async thresholdHashes(thCents: number, stamp: number): Promise<OracleHashes> {
    // Not the quote route: in network mode a quote waits on the guardians' own prices.
    const url = `${this.app}/api/oracle/threshold-hash?th=${thCents}&ts=${stamp}`;
    const quote = await getJson(url, oracleQuote, this.timeoutMs);
    const hashes = quote.threshold_hashes ?? [quote.threshold_hash];
    return { hashes: hashes.map((h) => hex.decode(h)), statements: quote.oracle_statements ?? [] };
  }
}

const appConfig = z.object({
  network: z.string(),
  unitRuneId: z.string().nullable(),
});
const quoteKey = z.object({ oracle_pubkey: z.string().regex(/^[0-9a-f]{64}$/) });

export interface AppFacts {
  network: string;
  unitRuneId: string;
  oraclePubkey: string;
}

/**
 * The facts a guardian checks requests against: its pins, and what it did not pin read once from
 * the app at start (the devnet only: pinned-facts.ts). The treasury is the group key's (policy.ts).
 * With a network pinned, an app that names another network is refused.
 */
export async function readAppFacts(
  app: string,
  pinned: Partial<AppFacts>,
  timeoutMs = 5_000,
): Promise<AppFacts> {
  const base = trimSlash(app);
  const needsConfig = !pinned.network || !pinned.unitRuneId;
  const config = needsConfig ? await getJson(`${base}/api/config`, appConfig, timeoutMs) : null;
  if (config && pinned.network && config.network !== pinned.network)
    throw new Error(
      `${base}/api/config names network ${config.network}, but this guardian is pinned to ${pinned.network}`,
    );
  const oraclePubkey =
    pinned.oraclePubkey ??
    // Not the quote route: in network mode a quote needs the guardians' prices, not there yet.
    (await getJson(`${base}/api/oracle/threshold-hash?th=0&ts=0`, quoteKey, timeoutMs))
      .oracle_pubkey;
  const unitRuneId = pinned.unitRuneId ?? config?.unitRuneId;
  if (!unitRuneId) throw new Error(`${base}/api/config names no UNIT rune id yet`);
  return {
    network: pinned.network ?? config!.network,
    unitRuneId,
    oraclePubkey,
  };
}
