// The Chain port over HTTP: esplora (blocks, transactions, addresses), mempool.space (fees), an
// ordinals service (UTXOs without inscriptions or runes) and a runes service (UNIT outputs). The
// devnet serves the same routes, so one adapter covers the devnet, signet, mutinynet and mainnet.
import type {
  AddressStatsDto,
  Network,
  RecommendedFeesDto,
  UnitOutputDto,
  UtxoDto,
} from '@unit/protocol';
import type { EsploraOutspend, EsploraTx } from './esplora-types';
import { OrdIndexer } from './ord';
import {
  answeredWith,
  failing,
  failureCause,
  unreachable,
  type ChainService,
} from './service-failure';
import {
  BroadcastError,
  ChainUnavailableError,
  type Chain,
  type ChainOutput,
  type ChainSpender,
  type ChainTip,
  type TxStatus,
} from './port';
import { DEFAULT_CHAIN_TIMEOUT_MS } from '../config-schema';

export interface EsploraChainOptions {
  esploraUrl: string;
  mempoolUrl: string;
  ordinalsUrl: string;
  runesUrl: string;
  network: Network;
  /**
   * How runes and ordinals are read: `unit`, this product's routes under runesUrl and ordinalsUrl
   * (the devnet's); `ord`, ord's JSON API at runesUrl (see ord.ts), with `unitRuneId` naming UNIT.
   */
  runesApi?: 'unit' | 'ord';
  unitRuneId?: string;
  /** How often onBlock polls the tip while someone listens. Default 5 s. */
  pollMs?: number;
  /** Longest wait for one answer (connect, headers and body). Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    where: { service: ChainService; route: string },
  ) {
    super(answeredWith(where.service, where.route, status, body));
    this.name = 'HttpError';
  }
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * Bitcoin Core's reason out of esplora's broadcast error
 * (`sendrawtransaction RPC error: {"code":-26,"message":"dust"}`), or the body as it is.
 */
export function broadcastReason(body: string): string {
  const match = /RPC error:\s*(\{.*\})\s*$/s.exec(body);
  if (match) {
    try {
      const parsed = JSON.parse(match[1]!) as { message?: unknown };
      if (typeof parsed.message === 'string') return parsed.message;
    } catch {
      // not JSON after all: fall through to the raw text
    }
  }
  return body.trim();
}

export class EsploraChain implements Chain {
  private readonly esplora: string;
  private readonly mempool: string;
  private readonly ordinals: string;
  private readonly runes: string;
  private readonly fetch: typeof fetch;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly listeners = new Set<(tip: ChainTip) => void>();
  private poller: ReturnType<typeof setInterval> | null = null;
  private lastTip: ChainTip | null = null;
  private readonly ord: OrdIndexer | null;

  constructor(private readonly options: EsploraChainOptions) {
    this.esplora = trimSlash(options.esploraUrl);
    this.mempool = trimSlash(options.mempoolUrl);
    this.ordinals = trimSlash(options.ordinalsUrl);
    this.runes = trimSlash(options.runesUrl);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.pollMs = options.pollMs ?? 5_000;
    this.ord =
      options.runesApi === 'ord'
        ? new OrdIndexer({
            url: this.runes,
            unitRuneId: options.unitRuneId ?? '',
            fetch: this.fetch,
            timeoutMs: options.timeoutMs,
          })
        : null;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CHAIN_TIMEOUT_MS;
  }

  /**
   * Which configured service a URL is on and the route without its base, for errors that name the
   * service and its host: a base may carry an API key, never logged or stored.
   */
  private serviceOf(url: string): { service: ChainService; route: string } {
    const services: ChainService[] = [
      { name: 'esplora', setting: 'ESPLORA_URL', base: this.esplora },
      { name: 'mempool', setting: 'MEMPOOL_URL', base: this.mempool },
      { name: 'ordinals', setting: 'ORDINALS_URL', base: this.ordinals },
      { name: 'runes', setting: 'RUNES_URL', base: this.runes },
    ];
    for (const service of services)
      if (url.startsWith(service.base))
        return { service, route: url.slice(service.base.length) || '/' };
    return { service: services[0]!, route: new URL(url).pathname };
  }

  /**
   * One call, bounded by the time-out. A service that does not answer (refused, reset, timed out)
   * or answers with an upstream failure (5xx, 429) throws ChainUnavailableError; any other answer
   * comes back with its status.
   */
  private async call(url: string, init?: RequestInit): Promise<{ status: number; body: string }> {
    const { service, route } = this.serviceOf(url);
    try {
      const response = await this.fetch(url, {
        ...init,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await response.text();
      if (response.status >= 500 || response.status === 429)
        throw failing(service, route, response.status);
      return { status: response.status, body };
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw error;
      throw unreachable(service, route, failureCause(error, this.timeoutMs));
    }
  }

  private async request(url: string, init?: RequestInit): Promise<string> {
    const { status, body } = await this.call(url, init);
    if (status < 200 || status >= 300) throw new HttpError(status, body, this.serviceOf(url));
    return body;
  }

  private async json<T>(url: string): Promise<T> {
    return JSON.parse(await this.request(url)) as T;
  }

  /** null for a 404 (esplora's "Transaction not found"); other failures throw. */
  private async orNull<T>(work: Promise<T>): Promise<T | null> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return null;
      throw error;
    }
  }

  async tip(): Promise<ChainTip> {
    const height = Number(await this.request(`${this.esplora}/blocks/tip/height`));
    // The hash of that very height, so a block found between the two calls cannot mix them up.
    const hash = (await this.request(`${this.esplora}/block-height/${height}`)).trim();
    return { height, hash };
  }

  addressStats(address: string): Promise<AddressStatsDto> {
    return this.json(`${this.esplora}/address/${encodeURIComponent(address)}`);
  }

  utxos(address: string): Promise<UtxoDto[]> {
    return this.json(`${this.esplora}/address/${encodeURIComponent(address)}/utxo`);
  }

  async paymentUtxos(address: string): Promise<UtxoDto[]> {
    if (this.ord) return this.ord.paymentOnly(await this.utxos(address));
    return this.json(`${this.ordinals}/address/${encodeURIComponent(address)}/utxos`);
  }

  unitOutputs(address: string): Promise<UnitOutputDto[]> {
    if (this.ord) return this.ord.unitOutputs(address);
    return this.json(`${this.runes}/address/${encodeURIComponent(address)}/outputs`);
  }

  async output(txid: string, vout: number): Promise<ChainOutput | null> {
    const tx = await this.orNull(this.json<EsploraTx>(`${this.esplora}/tx/${txid}`));
    const out = tx?.vout[vout];
    if (!tx || !out) return null;
    const outspend = await this.json<EsploraOutspend>(
      `${this.esplora}/tx/${txid}/outspend/${vout}`,
    );
    const address = out.scriptpubkey_address ?? null;
    let unitAmount = 0;
    if (this.ord) {
      const name = await this.ord.unitRuneName();
      unitAmount = (await this.ord.output(txid, vout))?.runes?.[name]?.amount ?? 0;
    } else if (address !== null) {
      const unitOutputs = await this.unitOutputs(address);
      unitAmount = unitOutputs.find((o) => o.txid === txid && o.vout === vout)?.unit_amount ?? 0;
    }
    return {
      txid,
      vout,
      value: out.value,
      script_hex: out.scriptpubkey,
      address,
      unit_amount: unitAmount,
      spent: outspend.spent,
      status: tx.status,
    };
  }

  async spender(txid: string, vout: number): Promise<ChainSpender | null> {
    const spend = await this.orNull(
      this.json<EsploraOutspend>(`${this.esplora}/tx/${txid}/outspend/${vout}`),
    );
    if (!spend?.spent || !spend.txid) return null;
    return { txid: spend.txid, vin: spend.vin ?? 0, status: spend.status ?? { confirmed: false } };
  }

  txHex(txid: string): Promise<string | null> {
    return this.orNull(this.request(`${this.esplora}/tx/${txid}/hex`).then((hex) => hex.trim()));
  }

  txStatus(txid: string): Promise<TxStatus | null> {
    return this.orNull(this.json<TxStatus>(`${this.esplora}/tx/${txid}/status`));
  }

  async broadcast(rawHex: string): Promise<string> {
    // A 4xx is the node's refusal; no answer at all is ChainUnavailableError (call()).
    const { status, body } = await this.call(`${this.esplora}/tx`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: rawHex,
    });
    if (status < 200 || status >= 300) throw new BroadcastError(broadcastReason(body));
    return body.trim();
  }

  fees(): Promise<RecommendedFeesDto> {
    // SPEC §7: mutinynet's mempool instance answers under the signet path.
    const network = this.options.network === 'mutinynet' ? 'signet' : this.options.network;
    const prefix = network === 'mainnet' ? '' : `/${network}`;
    return this.json(`${this.mempool}${prefix}/api/v1/fees/recommended`);
  }

  onBlock(listener: (tip: ChainTip) => void): () => void {
    this.listeners.add(listener);
    if (this.poller === null) {
      this.poller = setInterval(() => void this.poll(), this.pollMs);
      this.poller.unref?.();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.poller !== null) {
        clearInterval(this.poller);
        this.poller = null;
        this.lastTip = null;
      }
    };
  }

  private async poll(): Promise<void> {
    let tip: ChainTip;
    try {
      tip = await this.tip();
    } catch {
      return; // a flaky service: try again on the next tick
    }
    const previous = this.lastTip;
    this.lastTip = tip;
    if (previous === null || previous.hash === tip.hash) return;
    for (const listener of this.listeners) listener(tip);
  }
}
