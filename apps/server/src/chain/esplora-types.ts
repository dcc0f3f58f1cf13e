// The JSON shapes of the esplora HTTP API that this app serves (devnet) and reads (EsploraChain).
import type { TxStatus } from './port';

export interface EsploraPrevout {
  scriptpubkey: string;
  scriptpubkey_type: string;
  scriptpubkey_address?: string;
  value: number;
}

export interface EsploraVin {
  txid: string;
  vout: number;
  prevout: EsploraPrevout | null;
  scriptsig: string;
  witness: string[];
  is_coinbase: boolean;
  sequence: number;
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
