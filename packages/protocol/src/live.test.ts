import { describe, expect, it } from 'vitest';
import { parseLiveEvent } from './live';

const VAULT = 'ab'.repeat(32);

describe('parseLiveEvent', () => {
  it('reads the three events the stream carries', () => {
    expect(parseLiveEvent('price', '{"USD":64123.45,"time":1700000000}')).toEqual({
      type: 'price',
      data: { USD: 64123.45, time: 1700000000 },
    });
    expect(parseLiveEvent('block', '{"height":812}')).toEqual({
      type: 'block',
      data: { height: 812 },
    });
    expect(
      parseLiveEvent('vault', JSON.stringify({ vault_id: VAULT, kind: 'liquidation' })),
    ).toEqual({ type: 'vault', data: { vault_id: VAULT, kind: 'liquidation' } });
  });

  it('reads a stale price with its cause, and drops a cause it does not know', () => {
    const stale = { USD: 95_000, time: 1_700_000_000, stale: true };
    expect(
      parseLiveEvent('price', JSON.stringify({ ...stale, stale_reason: 'no_quorum' })),
    ).toEqual({
      type: 'price',
      data: { ...stale, stale_reason: 'no_quorum' },
    });
    expect(parseLiveEvent('price', JSON.stringify({ ...stale, stale_reason: 'bogus' }))).toEqual({
      type: 'price',
      data: stale,
    });
    expect(
      parseLiveEvent(
        'price',
        JSON.stringify({ ...stale, stale: 'yes', stale_reason: 'no_quorum' }),
      ),
    ).toEqual({ type: 'price', data: { USD: 95_000, time: 1_700_000_000 } });
  });

  it('keeps only the fields it knows', () => {
    expect(parseLiveEvent('block', '{"height":3,"extra":"x"}')).toEqual({
      type: 'block',
      data: { height: 3 },
    });
  });

  it.each([
    ['price', '{"USD":-1,"time":1}'],
    ['price', '{"USD":"95000","time":1}'],
    ['price', '{"USD":95000,"time":1.5}'],
    ['block', '{"height":-2}'],
    ['block', '[1]'],
    ['block', 'not json'],
    ['vault', JSON.stringify({ vault_id: VAULT.toUpperCase(), kind: 'action' })],
    ['vault', JSON.stringify({ vault_id: VAULT, kind: 'other' })],
    ['tick', '{"height":1}'],
    ['block', `{"height":1,"pad":"${'x'.repeat(600)}"}`],
  ])('drops %s %s', (type, json) => {
    expect(parseLiveEvent(type, json)).toBeNull();
  });
});
