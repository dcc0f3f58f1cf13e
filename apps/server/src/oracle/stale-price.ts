// The error every price reader throws while the price is stale (oracle.ts, network-series.ts).
import { PRICE_PAUSE_COPY, type PriceStaleReason } from '@unit/protocol';
import { DomainError } from '../errors';

/** The stale price's cause as the page is told it: the guardians' quorum, or the price source. */
export const staleCauseOf = (networkMode: boolean): PriceStaleReason =>
  networkMode ? 'no_quorum' : 'no_fresh_price';

/** Why the devnet's simulated price is stale while its feed is stopped (POST /api/devnet/price-feed). */
export const FEED_STOPPED = 'the devnet price feed is stopped';

/**
 * The oracle has no fresh price: quotes are neither signed nor accepted until it has one. The
 * message is what the user reads (its cause: the guardians' quorum, or the price source); the
 * internal reason is for the log.
 */
export class StalePriceError extends DomainError {
  readonly staleCause: PriceStaleReason;
  constructor(readonly reason: string) {
    const cause = /quorum/.test(reason) ? 'no_quorum' : 'no_fresh_price';
    super('no_price', PRICE_PAUSE_COPY.refusal[cause]);
    this.staleCause = cause;
    this.name = 'StalePriceError';
  }
}
