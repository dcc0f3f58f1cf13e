// The keys a guardian's vault policy accepts after a rotation: the session's, every set it holds
// and the `previous` each names; the newest held set for new vault outputs; the treasury under one
// of them, and under the session's own key only when the session signs the treasury.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { OutScript } from '@scure/btc-signer';
import { declarationOf, type ActionDeclaration, type VaultFields } from '@unit/bitcoin';
import type { VaultAction } from '@unit/protocol/wire';
import type { GuardianSet } from '../guardian-set';
import { setKeysOf, treasuryScriptOf } from './set-keys';
import type { ClaimedInput } from './reads';

const key = (n: number) => hex.encode(new Uint8Array(32).fill(n));
const set = (version: number, groupKey: string, previous?: string) =>
  ({
    version,
    groupKey,
    ...(previous ? { previous: { version: version - 1, groupKey: previous, digest: '' } } : {}),
  }) as unknown as GuardianSet;
const tr = (k: string) => OutScript.encode({ type: 'tr', pubkey: hex.decode(k) });
const borrow = declarationOf('borrow') as ActionDeclaration<VaultAction, never, VaultFields>;
const treasuryIndex = borrow.spends.findIndex((s) => s.role === 'treasury');
/** A borrow's inputs as claimed, its treasury input paying `script`. */
const inputsWith = (script: Uint8Array): ClaimedInput[] =>
  borrow.spends.map((_, i) => ({
    txid: '00'.repeat(32),
    vout: i,
    script: i === treasuryIndex ? script : new Uint8Array([0x51]),
    amount: 10_000n,
  }));

describe('the set keys of a vault request', () => {
  it('knows the held sets and each one’s previous key; the newest held is the new vault’s', () => {
    // A member of set 2 only (the new guardian): it knows set 1's key from set 2's `previous`.
    const joined = setKeysOf(key(2), [set(2, key(2), key(1))]);
    expect(hex.encode(joined.newest)).toBe(key(2));
    expect(joined.known.map((k) => hex.encode(k))).toEqual([key(2), key(1)]);
    // A staying member signing for set 1: the newest is set 2's even so.
    const staying = setKeysOf(key(1), [set(1, key(1)), set(2, key(2), key(1))]);
    expect(hex.encode(staying.signing)).toBe(key(1));
    expect(hex.encode(staying.newest)).toBe(key(2));
    expect(staying.known.map((k) => hex.encode(k))).toEqual([key(2), key(1)]);
    // A node that says nothing of its sets: the session's set alone.
    const bare = setKeysOf(key(7));
    expect([bare.newest, ...bare.known].map((k) => hex.encode(k))).toEqual([key(7), key(7)]);
  });

  it('takes the treasury under a known key, and under the session’s own only when it signs it', () => {
    const keys = setKeysOf(key(2), [set(2, key(2), key(1))]);
    const first = inputsWith(tr(key(1)));
    expect(treasuryScriptOf(keys, borrow, first, false)).toEqual(tr(key(1)));
    // Set 2 asked to sign set 1's treasury: its own key's script, which the treasury check refuses.
    expect(treasuryScriptOf(keys, borrow, first, true)).toEqual(tr(key(2)));
    // A stranger's key is no treasury.
    expect(treasuryScriptOf(keys, borrow, inputsWith(tr(key(9))), false)).toEqual(tr(key(2)));
  });
});
