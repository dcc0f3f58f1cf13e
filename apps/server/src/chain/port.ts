// The one way the guardian and the API reach a Bitcoin network. Two adapters implement it: the
// in-process devnet and an HTTP client of esplora/mempool/ordinals-compatible services.
import type { AddressStatsDto, RecommendedFeesDto, UnitOutputDto, UtxoDto } from '@unit/protocol';

export interface TxStatus {
  confirmed: boolean;
  block_height?: number;
  block_hash?: string;
  block_time?: number;
}

export interface ChainTip {
  height: number;
  hash: string;
}

/** A transaction output as the chain sees it, with the UNIT it carries. */
export interface ChainOutput {
  txid: string;
  vout: number;
  value: number;
  script_hex: string;
  address: string | null;
  unit_amount: number;
  spent: boolean;
  status: TxStatus;
}

/** The transaction that spent an output, and its input that did (esplora's outspend). */
export interface ChainSpender {
  txid: string;
  vin: number;
  status: TxStatus;
}

export class BroadcastError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BroadcastError';
  }
}

/**
 * The chain service did not answer: a connection refused or reset, a time-out, or an upstream
 * failure (5xx, 429). Nothing is known of what was asked; a broadcast may or may not have reached
 * the network (cosign/settle.ts learns which from the chain).
 */
export class ChainUnavailableError extends Error {
  // The message is the service's route and status, for the log; users read CHAIN_UNAVAILABLE_MESSAGE.
  constructor(message: string) {
    super(message);
    this.name = 'ChainUnavailableError';
  }
}

/** What a user reads when the network's services did not answer: nothing is lost, try again. */
export const CHAIN_UNAVAILABLE_MESSAGE =
  'The Bitcoin network service is not answering right now; please try again in a minute';

export interface Chain {
  tip(): Promise<ChainTip>;
  addressStats(address: string): Promise<AddressStatsDto>;
  /** Every unspent output of the address, mempool included. */
  utxos(address: string): Promise<UtxoDto[]>;
  /** Unspent outputs that carry no runes: safe to spend for BTC. */
  paymentUtxos(address: string): Promise<UtxoDto[]>;
  /** Outputs carrying UNIT at the address (SPEC §3 UNIT output). */
  unitOutputs(address: string): Promise<UnitOutputDto[]>;
  output(txid: string, vout: number): Promise<ChainOutput | null>;
  /** Who spent the output (mempool included); null while it is unspent or unknown. */
  spender(txid: string, vout: number): Promise<ChainSpender | null>;
  txHex(txid: string): Promise<string | null>;
  txStatus(txid: string): Promise<TxStatus | null>;
  /**
   * Raw hex in, txid out; refusals throw BroadcastError with the node's reason, a service that did
   * not answer ChainUnavailableError (the transaction may have reached the network all the same).
   */
  broadcast(rawHex: string): Promise<string>;
  fees(): Promise<RecommendedFeesDto>;
  /** Resolves on each new block; returns an unsubscribe function. */
  onBlock(listener: (tip: ChainTip) => void): () => void;
}
