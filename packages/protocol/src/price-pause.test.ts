import { describe, expect, it } from 'vitest';
import { PRICE_PAUSE_COPY, pricePause } from './price-pause';

describe('pricePause', () => {
  it('says the cause, the time of the last fresh price and what to do', () => {
    const quorum = pricePause({ stale: true, stale_reason: 'no_quorum' }, '02:52');
    expect(quorum).toEqual({
      title: 'Vault actions are paused',
      cause:
        'The guardians have no price quorum: too few of them answer with a fresh bitcoin price, so no price newer than 02:52 can be signed.',
      whatToDo: PRICE_PAUSE_COPY.whatToDo,
      buttonReason: PRICE_PAUSE_COPY.button.no_quorum,
    });
    expect(pricePause({ stale: true, stale_reason: 'no_fresh_price' }, '14:05')?.cause).toBe(
      'The bitcoin price is stale: the price feeds have given no fresh price since 14:05.',
    );
  });
  it('is null while the price is fresh or the server gave no reason', () => {
    expect(pricePause({ stale: false, stale_reason: null }, '02:52')).toBeNull();
    expect(pricePause({ stale: false, stale_reason: 'no_quorum' }, '02:52')).toBeNull();
    expect(pricePause({ stale: true }, '02:52')).toBeNull();
    expect(pricePause(undefined, '02:52')).toBeNull();
  });
  it('words every sentence as a full sentence', () => {
    const sentences = [
      PRICE_PAUSE_COPY.whatToDo,
      ...Object.values(PRICE_PAUSE_COPY.button),
      ...Object.values(PRICE_PAUSE_COPY.refusal),
      ...Object.values(PRICE_PAUSE_COPY.cause).map((cause) => cause('02:52')),
    ];
    for (const s of sentences) expect(s).toMatch(/^[A-Z].*\.$/);
  });
});
