// The per-vault answer cache: kept until the vault changes (on any instance: the bus), a block or
// a resync, or its age; never keeps an answer read across a change.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { LocalEventBus } from '../cluster/bus';
import { AnswerCache } from './answer-cache';

const A = 'aa'.repeat(32);
const B = 'bb'.repeat(32);

describe('the answer cache', () => {
  it("forgets a vault's answers and every vault-less one on its change, all on a block", async () => {
    const bus = new LocalEventBus(pino({ level: 'silent' }));
    const cache = new AnswerCache();
    const stop = cache.follow(bus);
    const keep = (key: string, vaultId: string | null) =>
      cache.set(key, vaultId, key, cache.mark());
    keep('a', A);
    keep('b', B);
    keep('none', null);
    await bus.publish({ type: 'vault', data: { vault_id: A, kind: 'action' } });
    expect([cache.get('a'), cache.get('b'), cache.get('none')]).toEqual([
      undefined,
      'b',
      undefined,
    ]);
    await bus.publish({ type: 'block', data: { height: 7 } });
    expect(cache.get('b')).toBeUndefined();
    stop();
    keep('b', B);
    await bus.publish({ type: 'block', data: { height: 8 } });
    expect(cache.get('b')).toBe('b');
  });

  it('does not keep an answer read while a change came in', () => {
    const cache = new AnswerCache();
    const mark = cache.mark();
    cache.forgetVault(B);
    cache.set('a', A, 'old', mark);
    expect(cache.get('a')).toBeUndefined();
  });

  it('lets an answer go after its age, and the oldest beyond its size', () => {
    let now = 0;
    const cache = new AnswerCache({ maxAgeMs: 1_000, maxEntries: 2, now: () => now });
    cache.set('a', A, 'a', cache.mark());
    now = 1_000;
    expect(cache.get('a')).toBe('a');
    now = 1_001;
    expect(cache.get('a')).toBeUndefined();
    for (const key of ['x', 'y', 'z']) cache.set(key, A, key, cache.mark());
    expect([cache.get('x'), cache.get('y'), cache.get('z')]).toEqual([undefined, 'y', 'z']);
    expect(cache.size).toBe(2);
    const small = new AnswerCache({ maxBytes: 10 });
    for (const key of ['aaaa', 'bbbb', 'cccc']) small.set(key, A, key, small.mark());
    expect([small.get('aaaa'), small.get('bbbb'), small.get('cccc')]).toEqual([undefined, 'bbbb', 'cccc']); // prettier-ignore
    small.set('huge', A, 'x'.repeat(11), small.mark());
    expect(small.get('huge')).toBeUndefined();
  });
});
