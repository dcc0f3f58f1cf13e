// The Chain port over the in-process devnet: direct calls, no HTTP in between.
import type { AddressStatsDto, RecommendedFeesDto, UnitOutputDto, UtxoDto } from '@unit/protocol';
import type { Devnet } from './devnet';
import {
  ChainUnavailableError,
  type Chain,
  type ChainOutput,
  type ChainSpender,
  type ChainTip,
  type TxStatus,
} from '../chain/port';

export class DevnetChain implements Chain {
  constructor(private readonly devnet: Devnet) {}

  /**
   * The call, or a chain service that is down while the devnet's control says so
   * (Devnet.chainAvailable): it fails at once, before reaching the devnet (nothing is broadcast).
   */
  private live<T>(call: () => Promise<T>): Promise<T> {
    if (!this.devnet.chainAvailable)
      return Promise.reject(new ChainUnavailableError('the devnet chain is down (devnet control)'));
    return call();
  }

  async tip(): Promise<ChainTip> {
    const { height, hash } = await this.live(() => this.devnet.tip());
    return { height, hash };
  }

  addressStats(address: string): Promise<AddressStatsDto> {
    return this.live(() => this.devnet.addressStats(address));
  }

  utxos(address: string): Promise<UtxoDto[]> {
    return this.live(() => this.devnet.utxos(address));
  }

  paymentUtxos(address: string): Promise<UtxoDto[]> {
    return this.live(() => this.devnet.paymentUtxos(address));
  }

  unitOutputs(address: string): Promise<UnitOutputDto[]> {
    return this.live(() => this.devnet.unitOutputs(address));
  }

  output(txid: string, vout: number): Promise<ChainOutput | null> {
    return this.live(() => this.devnet.output(txid, vout));
  }

  async spender(txid: string, vout: number): Promise<ChainSpender | null> {
    const spend = await this.live(() => this.devnet.outspend(txid, vout));
    if (!spend?.spent || !spend.txid) return null;
    return { txid: spend.txid, vin: spend.vin ?? 0, status: spend.status ?? { confirmed: false } };
  }

  txHex(txid: string): Promise<string | null> {
    return this.live(() => this.devnet.txHex(txid));
  }

  txStatus(txid: string): Promise<TxStatus | null> {
    return this.live(() => this.devnet.txStatus(txid));
  }

  /** Refusals surface as the devnet's BroadcastError with Core's reject reason. */
  broadcast(rawHex: string): Promise<string> {
    return this.live(() => this.devnet.broadcast(rawHex));
  }

  fees(): Promise<RecommendedFeesDto> {
    return this.live(() => this.devnet.fees());
  }

  onBlock(listener: (tip: ChainTip) => void): () => void {
    return this.devnet.onBlock(({ height, hash }) => listener({ height, hash }));
  }
}
