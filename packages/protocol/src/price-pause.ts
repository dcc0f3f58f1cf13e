// What the borrower reads while vault actions wait for a fresh bitcoin price: the dashboard's paused
// banner, the action buttons' disabled reason and the server's refusal share these sentences, so
// the cause said before a click is the cause said after one.
import type { PriceStaleReason } from './api';

export const PRICE_PAUSE_COPY = {
  title: 'Vault actions are paused',
  /** the cause, with the time of the last fresh price ('02:52') */
  cause: {
    no_quorum: (since: string) =>
      `The guardians have no price quorum: too few of them answer with a fresh bitcoin price, so no price newer than ${since} can be signed.`,
    no_fresh_price: (since: string) =>
      `The bitcoin price is stale: the price feeds have given no fresh price since ${since}.`,
  } satisfies Record<PriceStaleReason, (since: string) => string>,
  whatToDo:
    'Your vault and its funds are unchanged. Deposit, withdraw, borrow and repay open again by themselves once a fresh price arrives; keep this page open or come back in a few minutes.',
  /** the action buttons' reason */
  button: {
    no_quorum:
      'Paused: the guardians have no price quorum. This opens again once they agree on a fresh price.',
    no_fresh_price:
      'Paused: the bitcoin price is stale. This opens again once a fresh price arrives.',
  } satisfies Record<PriceStaleReason, string>,
  /** the server's refusal of an action asked for anyway (no time: the server's clock is not the reader's) */
  refusal: {
    no_quorum:
      'Vault actions are paused because the guardians have no price quorum (too few of them answer with a fresh bitcoin price). Nothing was sent; please try again once the dashboard shows a fresh price.',
    no_fresh_price:
      'Vault actions are paused because the bitcoin price is stale (the price feeds give no fresh price). Nothing was sent; please try again once the dashboard shows a fresh price.',
  } satisfies Record<PriceStaleReason, string>,
} as const;

export interface PricePause {
  title: string;
  cause: string;
  whatToDo: string;
  buttonReason: string;
}

/**
 * The paused state's sentences while the server says the price is stale, or null while it is fresh
 * (or the server gave no reason: an older server; the banner's 'Price as of' still shows the age).
 */
export function pricePause(
  price: { stale?: boolean; stale_reason?: PriceStaleReason | null } | null | undefined,
  since: string,
): PricePause | null {
  const reason = price?.stale ? price.stale_reason : null;
  if (!reason) return null;
  return {
    title: PRICE_PAUSE_COPY.title,
    cause: PRICE_PAUSE_COPY.cause[reason](since),
    whatToDo: PRICE_PAUSE_COPY.whatToDo,
    buttonReason: PRICE_PAUSE_COPY.button[reason],
  };
}
