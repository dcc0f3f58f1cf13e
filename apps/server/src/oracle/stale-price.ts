// The error every price reader throws while the price is stale (oracle.ts, network-series.ts).
import { DomainError } from '../errors';

/**
 * The oracle has no fresh price: quotes are neither signed nor accepted until it has one. The
 * message is what the user reads; the feeds' own reason is for the log.
 */
export class StalePriceError extends DomainError {
  constructor(readonly reason: string) {
    super(
      'no_price',
      'The bitcoin price is stale, so vault actions are paused until it is fresh again. Please try again in a minute',
    );
    this.name = 'StalePriceError';
  }
}
