// What an oracle quote fixes in a vault transaction (docs/protocol.md): the state record's price,
// threshold and stamp, and the new vault output whose liquidation leaf commits to the quote's
// threshold hash (one liquidation leaf per oracle commitment: the quote's `threshold_hashes` when the
// guardians are the oracles, else its one `threshold_hash`), and with the guardian network the
// record's commitment to the quote's price `quorum`. The web app, the guardian's tests and the
// flood probe build requests alike.
import { hex } from '@scure/base';
import {
  priceQuorumCommitment,
  vaultOutput,
  type QuorumPrice,
  type VaultOutput,
  type VaultOutputParams,
} from '../core';
import type { VaultStateFields } from './builders';

/** The fields of an oracle quote (GET /api/oracle/quote) that the transaction commits to. */
export interface QuoteCommitment {
  price_cents: number;
  ts: number;
  threshold_hash: string;
  /** With the guardian network: each oracle's hash in leaf order (the first is `threshold_hash`). */
  threshold_hashes?: readonly string[] | undefined;
  /** With the guardian network: the signed guardian prices; the state record commits to them. */
  quorum?: readonly QuorumPrice[] | undefined;
  /**
   * The term the new vault commits to (layout 2): the server's vaultTermAt of its chain tip. The
   * output gets the exit and settlement leaves, the record (versions 5 to 8) the heights and the
   * exit's sibling. Absent: layout 1.
   */
  term?: { settle_height: number; exit_height: number } | undefined;
}

/** The hashes a new vault's liquidation leaves commit to, in leaf order. */
export function quotedHashes(quote: QuoteCommitment): Uint8Array[] {
  const list = quote.threshold_hashes?.length ? quote.threshold_hashes : [quote.threshold_hash];
  return list.map((h) => hex.decode(h));
}

export function quotedVault(
  quote: QuoteCommitment,
  thresholdCents: number | bigint,
  request: { nonce: Uint8Array; expiry: number },
  keys: Omit<VaultOutputParams, 'thresholdHash'>,
): { state: VaultStateFields; newVault: VaultOutput } {
  const term = quote.term
    ? { settleHeight: quote.term.settle_height, exitHeight: quote.term.exit_height }
    : undefined;
  const newVault = vaultOutput({
    ...keys,
    thresholdHash: quotedHashes(quote),
    ...(term ? { term } : {}),
  });
  return {
    state: {
      quotePriceCents: BigInt(quote.price_cents),
      thresholdCents: BigInt(thresholdCents),
      quoteStamp: quote.ts,
      nonce: request.nonce,
      expiry: request.expiry,
      // An opening records it (docs/protocol.md): a vault is rebuilt from the chain alone.
      vaultPubkey: keys.vaultPubkey,
      // Network mode: the record commits to the quote's price quorum (versions 3 and 4).
      ...(quote.quorum?.length ? { quorumCommitment: priceQuorumCommitment(quote.quorum) } : {}),
      // Layout 2: the record carries the term and the exit's sibling (versions 5 to 8).
      ...(term && newVault.exitBranch
        ? { term: { ...term, exitBranch: newVault.exitBranch } }
        : {}),
    },
    newVault,
  };
}
