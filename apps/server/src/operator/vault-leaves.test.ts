// The reindex's candidate lists of oracle hashes, and the proof of a list by the vault's output.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { thresholdHash, vaultOutput } from '@unit/bitcoin';
import type { OracleHashStatement } from '@unit/guardian-net';
import { idAscendingLists, ownLeaves } from './vault-leaves';

const statement = (guardian: number, hash: string): { statement: OracleHashStatement } => ({
  statement: { guardian, setVersion: 1, th: 1, ts: 1, hash, sig: '' },
});
const key = (label: string) => pubSchnorr(sha256(new TextEncoder().encode(label)));

describe('idAscendingLists', () => {
  it('makes every list of one to three hashes, ids strictly ascending, longest first', () => {
    // Guardian 3 has two hashes: set 1's replaced member and set 2's new one.
    const lists = idAscendingLists([
      statement(3, 'c2'),
      statement(1, 'a'),
      statement(3, 'c1'),
      statement(2, 'b'),
    ]).map((list) => list.map((c) => `${c.statement.guardian}${c.statement.hash}`).join(' '));
    expect(lists).toHaveLength(4 + 5 + 2);
    expect(lists.slice(0, 2).toSorted()).toEqual(['1a 2b 3c1', '1a 2b 3c2']);
    expect(lists.slice(2, 7).toSorted()).toEqual(['1a 2b', '1a 3c1', '1a 3c2', '2b 3c1', '2b 3c2']);
    expect(lists.slice(7).toSorted()).toEqual(['1a', '2b', '3c1', '3c2']);
  });

  it('never takes more than three', () => {
    const lists = idAscendingLists([1, 2, 3, 4, 5].map((id) => statement(id, `h${id}`)));
    expect(Math.max(...lists.map((l) => l.length))).toBe(3);
    expect(lists).toHaveLength(10 + 10 + 5);
  });
});

describe('ownLeaves', () => {
  const vaultPubkey = key('vault');
  const guardPubkey = key('guard');
  const hashOf = (th: bigint, ts: number) => thresholdHash(sha256(Uint8Array.of(Number(th), ts)));
  const script = hex.encode(
    vaultOutput({ vaultPubkey, guardPubkey, thresholdHash: hashOf(7n, 9), network: TEST_NETWORK })
      .script,
  );

  it('proves the key and hash that rebuild the output, and nothing else', async () => {
    const leaves = ownLeaves({ guardPubkey, thresholdHash: hashOf, network: TEST_NETWORK });
    expect(await leaves.prove({ vaultPubkey, thCents: 7n, stamp: 9, script })).toEqual({
      guardPubkey,
      hashes: [hashOf(7n, 9)],
      commitment: null,
    });
    // Another stamp's hash, or another key: the output says no.
    expect(await leaves.prove({ vaultPubkey, thCents: 7n, stamp: 8, script })).toEqual({
      problem: 'this vault was not made with these keys',
    });
    const other = ownLeaves({
      guardPubkey: key('other'),
      thresholdHash: hashOf,
      network: TEST_NETWORK,
    });
    expect(await other.prove({ vaultPubkey, thCents: 7n, stamp: 9, script })).toHaveProperty(
      'problem',
    );
  });
});
