// The JSON shapes of the esplora HTTP API that this app serves (devnet) and reads (EsploraChain).
import type { TxStatus } from './port';

export interface EsploraPrevout {
  scriptpubkey: string;
  scriptpubkey_asm: string;
  scriptpubkey_type: string;
  scriptpubkey_address?: string;
  value: number;
}

export interface EsploraVin {
  txid: string;
  vout: number;
  prevout: EsploraPrevout | null;
  scriptsig: string;
  scriptsig_asm: string;
  witness: string[];
  is_coinbase: boolean;
  sequence: number;
  /** A P2SH spend's redeem script. */
  inner_redeemscript_asm?: string;
  /** A P2WSH (or P2SH-P2WSH) spend's witness script. */
  inner_witnessscript_asm?: string;
}

export interface EsploraTx {
  txid: string;
  version: number;
  locktime: number;
  vin: EsploraVin[];
  vout: EsploraPrevout[];
  size: number;
  weight: number;
  fee: number;
  status: TxStatus;
}

export interface EsploraOutspend {
  spent: boolean;
  txid?: string;
  vin?: number;
  status?: TxStatus;
}

/** GET /mempool/recent: the last transactions to enter the mempool, newest first. */
export interface EsploraMempoolRecent {
  txid: string;
  fee: number;
  vsize: number;
  /** Sum of the outputs, sats. */
  value: number;
}

/** GET /mempool: backlog statistics; fee_histogram is [feerate, vsize] pairs, highest rate first. */
export interface EsploraMempool {
  count: number;
  vsize: number;
  total_fee: number;
  fee_histogram: [number, number][];
}

/** GET /blocks[/:start_height]: one block of the list. */
export interface EsploraBlock {
  id: string;
  height: number;
  version: number;
  timestamp: number;
  tx_count: number;
  size: number;
  weight: number;
  merkle_root: string;
  previousblockhash: string | null;
  mediantime: number;
  nonce: number;
  bits: number;
  difficulty: number;
}
