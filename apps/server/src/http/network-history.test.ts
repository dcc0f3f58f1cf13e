// The sets' history as /network shows it: the kind of each change read from the sets themselves.
import { describe, expect, it } from 'vitest';
import type { GuardianSet } from '@unit/guardian-net';
import { setHistory } from './network-history';

const key = (c: string) => c.repeat(64);
const member = (id: number, name: string, k: string) => ({
  id,
  name,
  identityKey: key(k),
  url: `https://g${id}.example:7401`,
});
const frostOf = (tag: string) => ({ commitments: [`02${tag}`], verifyingShares: { a: tag } });

function set(version: number, groupKey: string, frostTag: string, members: string[], t = 2) {
  return {
    kind: 'unit/guardian-set',
    version,
    t,
    n: members.length,
    members: members.map((k, i) => member(i + 1, `guardian-${k}`, k)),
    coordinators: [],
    frost: frostOf(frostTag),
    groupKey,
    signatures: {},
  } as unknown as GuardianSet;
}

describe('the guardian sets’ history', () => {
  const chain = [
    set(1, 'k1', 'f1', ['a', 'b', 'c']),
    set(2, 'k1', 'f1', ['a', 'b', 'd']), // seat 3 repaired under a new identity key
    set(3, 'k1', 'f2', ['a', 'b', 'd']), // every share refreshed
    set(4, 'k1', 'f3', ['a', 'e', 'd']), // seat 2 reshared to a new member
    set(5, 'k2', 'f4', ['a', 'e', 'd', 'b'], 3), // a rotation to a new key
  ];
  const history = setHistory(
    chain,
    (v) => (v === 1 ? null : 1_700_000_000 + v),
    (v) => v >= 4,
  );

  it('lists every set newest first with what replaced what', () => {
    expect(history.map((h) => [h.set_version, h.change, h.replaces])).toEqual([
      [5, 'rotation', 4],
      [4, 'reshare', 3],
      [3, 'refresh', 2],
      [2, 'repair', 1],
      [1, 'created', null],
    ]);
  });

  it('names who joined and left, the members, when each was published and which still sign', () => {
    const [v5, v4, v3, v2, v1] = history;
    expect(v2).toMatchObject({ joined: ['guardian-d'], left: ['guardian-c'], signing: false });
    expect(v3).toMatchObject({ joined: [], left: [] });
    expect(v4).toMatchObject({ joined: ['guardian-e'], left: ['guardian-b'], signing: true });
    expect(v5).toMatchObject({ joined: ['guardian-b'], left: [], threshold: 3, size: 4 });
    expect(v5!.members.map((m) => m.fingerprint)).toEqual(['a', 'e', 'd', 'b'].map((c) => c.repeat(16))); // prettier-ignore
    expect(v1).toMatchObject({ joined: [], left: [], published_at: null, group_key: 'k1' });
    expect(v2!.published_at).toBe(1_700_000_002);
  });
});
