import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import {
  LedgerDigester,
  ledgerDifferences,
  ledgerDigest,
  ledgerEntry,
  ledgerFromJson,
  ledgerJson,
  type LedgerVault,
} from './digest';

const a: LedgerVault = {
  vaultId: '0a'.repeat(32),
  collateralSats: 1_000n,
  debt: 5n,
  status: 'open',
};
const b: LedgerVault = {
  vaultId: 'f0'.repeat(32),
  collateralSats: 0n,
  debt: 0n,
  status: 'repossessed',
};

/** The definition of docs/protocol.md, written out by hand. */
function byHand(entries: Uint8Array[]): string {
  const tag = sha256(new TextEncoder().encode('unit/ledger'));
  const count = new Uint8Array([0, 0, 0, entries.length]);
  const body = new Uint8Array(64 + 4 + entries.length * 49);
  body.set(tag, 0);
  body.set(tag, 32);
  body.set(count, 64);
  entries.forEach((e, i) => body.set(e, 68 + i * 49));
  return hex.encode(sha256(body));
}

describe('ledgerDigest', () => {
  it('hashes the entries in vault id order, whatever order they come in', () => {
    expect(ledgerDigest([b, a])).toBe(ledgerDigest([a, b]));
    expect(ledgerDigest([b, a])).toBe(byHand([ledgerEntry(a), ledgerEntry(b)]));
    expect(ledgerDigest([])).toBe(byHand([]));
  });

  it('is kept up to date by the digester, vault by vault', () => {
    const digester = new LedgerDigester();
    expect(digester.digest()).toBe(ledgerDigest([]));
    digester.set(b);
    digester.set({ ...a, debt: 99n });
    digester.set(a);
    expect(digester.digest()).toBe(ledgerDigest([a, b]));
  });

  it('lays an entry out as id, u64be sats, u64be debt, status byte', () => {
    expect(hex.encode(ledgerEntry(a))).toBe(
      `${'0a'.repeat(32)}00000000000003e8${'0'.repeat(15)}500`,
    );
    expect(ledgerEntry(b)[48]).toBe(1);
  });

  it('changes with any field, and names the vaults that differ', () => {
    const changed = { ...a, debt: 6n };
    expect(ledgerDigest([changed, b])).not.toBe(ledgerDigest([a, b]));
    expect(ledgerDifferences([a, b], [changed, b])).toEqual([
      { vaultId: a.vaultId, ours: a, theirs: changed },
    ]);
    expect(ledgerDifferences([a], [a, b])).toEqual([{ vaultId: b.vaultId, ours: null, theirs: b }]);
  });

  it('round-trips its JSON form and refuses one that is not', () => {
    const json = ledgerJson(7, [b, a]);
    expect(json.digest).toBe(ledgerDigest([a, b]));
    expect(ledgerFromJson(JSON.parse(JSON.stringify(json)))).toEqual([a, b]);
    expect(ledgerFromJson({ vaults: [{ ...json.vaults[0], debt: '-1' }] })).toBeNull();
    expect(ledgerFromJson({ vaults: [{ ...json.vaults[0], status: 'gone' }] })).toBeNull();
  });
});
