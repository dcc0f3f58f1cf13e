// One broadcast and what the network said of it (settle.ts): sent, found there already, refused,
// or unknown when no answer came. A refusal is believed only once the chain shows the transaction
// is not there, since a node refuses a transaction it already has.
import { BroadcastError, type Chain } from '../chain/port';

export type Sent =
  /** The network holds it: sent now, or found there already. */
  | { outcome: 'sent' | 'found' }
  /** The network answered that it will not take it. */
  | { outcome: 'refused'; reason: string }
  /** Nothing known: the service did not answer. */
  | { outcome: 'unknown'; reason: string };

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Bitcoin Core's refusals of a transaction it already has ('txn-already-in-mempool',
 * 'txn-already-known', 'transaction already in block chain'): the network holds it, even while an
 * indexer that lags behind the node does not show it yet.
 */
const ALREADY_HELD = /txn-already-(in-mempool|known)|already in block chain/i;

/** Whether the chain holds the transaction (mempool or block); null when it did not answer. */
export async function chainHolds(
  chain: Pick<Chain, 'txStatus'>,
  txid: string,
): Promise<boolean | null> {
  try {
    return (await chain.txStatus(txid)) !== null;
  } catch {
    return null;
  }
}

/**
 * Broadcasts, up to `sends` times while the chain says it does not hold the transaction and no
 * answer came; a refusal is believed only once the chain confirms the transaction is not there (a
 * node refuses a transaction it already has).
 */
export async function sendOrFind(
  chain: Pick<Chain, 'broadcast' | 'txStatus'>,
  txid: string,
  rawHex: string,
  sends = 2,
): Promise<Sent> {
  let reason = 'the network did not answer';
  for (let attempt = 0; attempt < sends; attempt++) {
    try {
      await chain.broadcast(rawHex);
      return { outcome: 'sent' };
    } catch (error) {
      reason = reasonOf(error);
      if (error instanceof BroadcastError && ALREADY_HELD.test(reason)) return { outcome: 'found' };
      const holds = await chainHolds(chain, txid);
      if (holds) return { outcome: 'found' };
      if (holds === null) return { outcome: 'unknown', reason };
      if (error instanceof BroadcastError) return { outcome: 'refused', reason };
    }
  }
  return { outcome: 'unknown', reason };
}

/** As after a restart: the chain is asked first, and only a transaction it lacks is sent. */
export async function findOrSend(chain: Chain, txid: string, rawHex: string): Promise<Sent> {
  const holds = await chainHolds(chain, txid);
  if (holds) return { outcome: 'found' };
  if (holds === null) return { outcome: 'unknown', reason: 'the network did not answer' };
  return sendOrFind(chain, txid, rawHex, 1);
}
