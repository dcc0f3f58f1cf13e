// Which sets of a chain still sign: a resharing's set (same group key) replaces the one it was
// dealt from; a rotation's set (new key) leaves the older set signing its own vaults.
import { describe, expect, it } from 'vitest';
import type { GuardianSet } from '@unit/guardian-net';
import { signingSets } from './set-chain';

const set = (version: number, groupKey: string) => ({ version, groupKey }) as GuardianSet;

describe('signingSets', () => {
  it('keeps every set of a chain of rotations', () => {
    const chain = [set(1, 'a'), set(2, 'b'), set(3, 'c')];
    expect(signingSets(chain)).toEqual(chain);
  });

  it('drops a set a later set of the same key replaced, and keeps the other keys', () => {
    const chain = [set(1, 'a'), set(2, 'a'), set(3, 'b'), set(4, 'b'), set(5, 'b')];
    expect(signingSets(chain).map((s) => s.version)).toEqual([2, 5]);
  });
});
