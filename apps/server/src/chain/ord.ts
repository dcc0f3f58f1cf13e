// Runes and ordinals through ord's JSON API (`ord server`, asked with `Accept: application/json`;
// shapes from ordinals/ord src/api.rs): GET /address/<address> lists an address's outputs (needs
// `--index-addresses`), GET /output/<outpoint> tells an output's runes and inscriptions, and GET
// /rune/<id> names the UNIT rune, whose spaced name keys the runes of an output. ord indexes blocks
// only: an output it has not indexed yet (`indexed: false`) may carry anything, so it is never
// offered as a payment output, and UNIT outputs appear once confirmed.
import { hex } from '@scure/base';
import type { UnitOutputDto, UtxoDto } from '@unit/protocol';
import { failing, failureCause, unreachable, type ChainService } from './service-failure';
import { asmScript } from './script-asm';

/** ord's `api::Output`. */
export interface OrdOutput {
  address: string | null;
  confirmations: number;
  indexed: boolean;
  /** null when ord runs without an inscription index. */
  inscriptions: string[] | null;
  outpoint: string;
  /** Spaced rune name to its pile; null when ord runs without a rune index. */
  runes: Record<string, { amount: number; divisibility: number; symbol: string | null }> | null;
  sat_ranges: [number, number][] | null;
  /**
   * Hex where api::Output holds a ScriptBuf (ord today); assembly text where it held
   * `to_asm_string()` (older servers, and the example in ord's API guide).
   */
  script_pubkey: string;
  spent: boolean;
  transaction: string;
  value: number;
}

/** ord's `api::AddressInfo`. */
export interface OrdAddressInfo {
  outputs: string[];
  inscriptions: string[] | null;
  sat_balance: number;
  /** [spaced rune, decimal amount as text, symbol] */
  runes_balances: [string, string, string | null][] | null;
}

/** ord's `api::Rune`: the rune entry with its id. */
export interface OrdRune {
  entry: {
    block: number;
    burned: number;
    divisibility: number;
    etching: string;
    mints: number;
    number: number;
    premine: number;
    spaced_rune: string;
    symbol: string | null;
    terms: unknown;
    timestamp: number;
    turbo: boolean;
  };
  id: string;
  mintable: boolean;
  parent: string | null;
}

export interface OrdIndexerOptions {
  /** Base URL of the ord server. */
  url: string;
  /** block:tx of UNIT. */
  unitRuneId: string;
  fetch?: typeof fetch;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Outputs of one address read at most (one request each). Default 500. */
  maxOutputs?: number;
}

export class OrdError extends Error {
  constructor(
    readonly status: number,
    path: string,
  ) {
    super(`ord ${path} answered ${status}`);
    this.name = 'OrdError';
  }
}

const OUTPOINT = /^([0-9a-f]{64}):(\d{1,10})$/;

/** An output's script as hex, whichever way the server wrote it. */
export function ordScriptHex(scriptPubkey: string): string {
  if (/^([0-9a-f]{2})*$/.test(scriptPubkey) && !scriptPubkey.startsWith('OP_')) return scriptPubkey;
  const script = asmScript(scriptPubkey);
  if (!script) throw new Error(`unreadable script from ord: ${scriptPubkey.slice(0, 80)}`);
  return hex.encode(script);
}
/** Requests in flight at once while reading an address's outputs. */
const PARALLEL = 8;

export class OrdIndexer {
  private readonly url: string;
  private readonly service: ChainService;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxOutputs: number;
  private unitName: string | null = null;

  constructor(private readonly options: OrdIndexerOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.service = { name: 'ord', setting: 'RUNES_URL', base: this.url };
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxOutputs = options.maxOutputs ?? 500;
  }

  /**
   * One read, bounded by the time-out. Like the esplora client, a silent or failing service (no
   * answer, 5xx, 429) is ChainUnavailableError, and errors name the host and path only: the base
   * URL may carry an API key.
   */
  private async json<T>(path: string): Promise<T | null> {
    let response: Response;
    try {
      response = await this.fetch(`${this.url}${path}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw unreachable(this.service, path, failureCause(error, this.timeoutMs));
    }
    if (response.status === 404) return null;
    if (response.status >= 500 || response.status === 429)
      throw failing(this.service, path, response.status);
    if (!response.ok) throw new OrdError(response.status, path);
    return (await response.json()) as T;
  }

  /** ord's `/rune/<query>` (a spaced or plain name, or an id); null when ord does not know it. */
  rune(query: string): Promise<OrdRune | null> {
    return this.json<OrdRune>(`/rune/${encodeURIComponent(query)}`);
  }

  /** The spaced name ord keys UNIT by, read once from /rune/<id>. */
  async unitRuneName(): Promise<string> {
    if (this.unitName !== null) return this.unitName;
    const rune = await this.rune(this.options.unitRuneId);
    if (!rune || rune.id !== this.options.unitRuneId)
      throw new Error(`ord does not know the UNIT rune ${this.options.unitRuneId}`);
    this.unitName = rune.entry.spaced_rune;
    return this.unitName;
  }

  output(txid: string, vout: number): Promise<OrdOutput | null> {
    return this.json<OrdOutput>(`/output/${txid}:${vout}`);
  }

  /** Reads outputs a few at a time. */
  private async outputs(outpoints: readonly { txid: string; vout: number }[]) {
    const found: (OrdOutput | null)[] = [];
    for (let i = 0; i < outpoints.length; i += PARALLEL)
      found.push(
        ...(await Promise.all(
          outpoints.slice(i, i + PARALLEL).map((o) => this.output(o.txid, o.vout)),
        )),
      );
    return found;
  }

  /** The address's outputs carrying UNIT, from ord's address index. */
  async unitOutputs(address: string): Promise<UnitOutputDto[]> {
    const name = await this.unitRuneName();
    const info = await this.json<OrdAddressInfo>(`/address/${encodeURIComponent(address)}`);
    if (!info) throw new Error('ord has no address index (run it with --index-addresses)');
    const outpoints = [];
    for (const text of info.outputs.slice(0, this.maxOutputs)) {
      const match = OUTPOINT.exec(text);
      if (match) outpoints.push({ txid: match[1]!, vout: Number(match[2]) });
    }
    const outputs = await this.outputs(outpoints);
    const units: UnitOutputDto[] = [];
    outpoints.forEach(({ txid, vout }, i) => {
      const output = outputs[i];
      const amount = output?.runes?.[name]?.amount ?? 0;
      if (!output || amount <= 0) return;
      if (!Number.isSafeInteger(amount)) throw new Error(`UNIT amount out of range at ${txid}`);
      units.push({
        txid,
        vout,
        script_hex: ordScriptHex(output.script_pubkey),
        btc_amount: output.value,
        unit_amount: amount,
        spent: output.spent,
      });
    });
    return units;
  }

  /**
   * The UTXOs (as esplora lists them) that are safe to spend for sats: indexed by ord, unspent,
   * with no rune and no inscription. An output ord has not indexed is left out.
   */
  async paymentOnly(utxos: readonly UtxoDto[]): Promise<UtxoDto[]> {
    const outputs = await this.outputs(utxos.slice(0, this.maxOutputs));
    return utxos.slice(0, this.maxOutputs).filter((_, i) => {
      const output = outputs[i];
      return (
        output !== null &&
        output !== undefined &&
        output.indexed &&
        !output.spent &&
        output.runes !== null &&
        Object.keys(output.runes).length === 0 &&
        output.inscriptions !== null &&
        output.inscriptions.length === 0
      );
    });
  }
}
