// The Chain port over the in-process devnet: direct calls, no HTTP in between.
import type { AddressStatsDto, RecommendedFeesDto, UnitOutputDto, UtxoDto } from '@unit/protocol';
import type { Devnet } from '../devnet/devnet';
import type { Chain, ChainOutput, ChainTip, TxStatus } from './port';

export class DevnetChain implements Chain {
  constructor(private readonly devnet: Devnet) {}

  async tip(): Promise<ChainTip> {
    const { height, hash } = await this.devnet.tip();
    return { height, hash };
  }

  addressStats(address: string): Promise<AddressStatsDto> {
    return this.devnet.addressStats(address);
  }

  utxos(address: string): Promise<UtxoDto[]> {
    return this.devnet.utxos(address);
  }

  paymentUtxos(address: string): Promise<UtxoDto[]> {
    return this.devnet.paymentUtxos(address);
  }

  unitOutputs(address: string): Promise<UnitOutputDto[]> {
    return this.devnet.unitOutputs(address);
  }

  output(txid: string, vout: number): Promise<ChainOutput | null> {
    return this.devnet.output(txid, vout);
  }

  txHex(txid: string): Promise<string | null> {
    return this.devnet.txHex(txid);
  }

  txStatus(txid: string): Promise<TxStatus | null> {
    return this.devnet.txStatus(txid);
  }

  /** Refusals surface as the devnet's BroadcastError with Core's reject reason. */
  broadcast(rawHex: string): Promise<string> {
    return this.devnet.broadcast(rawHex);
  }

  fees(): Promise<RecommendedFeesDto> {
    return this.devnet.fees();
  }

  onBlock(listener: (tip: ChainTip) => void): () => void {
    return this.devnet.onBlock(({ height, hash }) => listener({ height, hash }));
  }
}
