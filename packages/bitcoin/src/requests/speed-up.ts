// A speed-up request, free of I/O: a replacement of a vault transaction still in the mempool
// (BIP-125) reserves nothing, keeps the vault's state and asks no quote; from the original as the
// chain has it, it gives the PSBT the wallet signs and the `vault.speedup` request around it.
import { hex } from '@scure/base';
import type { SpeedUpRequest } from '@unit/protocol';
import { speedUp } from '../actions/speed-up';
import type { SpeedUpParams } from '../flows/speed-up';
import type { AssembledVaultTx } from '../flows/vault-tx';

/** An input of the original as esplora serves it (`vin[].prevout`): null when it is unknown. */
export interface OriginalPrevout {
  prevout: { scriptpubkey: string; value: number } | null;
}

export interface SpeedUpInput extends Omit<SpeedUpParams, 'original'> {
  /** The original's txid, raw hex and its inputs' prevouts. */
  originalTxid: string;
  originalHex: string;
  vin: readonly OriginalPrevout[];
  /** The requester's vault key, hex. */
  vaultPubkey: string;
}

export interface SpeedUpPlan {
  /** Nothing is reserved: the original's treasury output, if any, is spent again. */
  reserve: null;
  built: AssembledVaultTx;
  /** The request once the wallet has signed its inputs of `built.psbt` (base64). */
  request(signedPsbt: string): SpeedUpRequest;
}

/** The replacement PSBT of `originalTxid` at `feeRate` and the request that carries it. */
export function planSpeedUp(input: SpeedUpInput): SpeedUpPlan {
  const prevouts = input.vin.map((vin) => {
    if (!vin.prevout) throw new Error('The transaction spends an unknown output');
    return { script: hex.decode(vin.prevout.scriptpubkey), amount: BigInt(vin.prevout.value) };
  });
  const { originalTxid, originalHex, vin: _vin, vaultPubkey, ...params } = input;
  const built = speedUp.build({ ...params, original: { hex: originalHex, prevouts } });
  return {
    reserve: null,
    built,
    request: (psbt) => ({ original_txid: originalTxid, vault_pubkey: vaultPubkey, psbt }),
  };
}
