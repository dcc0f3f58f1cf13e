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
