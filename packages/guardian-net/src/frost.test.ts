// FROST as the guardians use it, in one process with a trusted dealer (unit tests only; the
// guardians themselves only ever get keys from the DKG, see test/network.test.ts).
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import type { DealerShares } from '@noble/curves/abstract/frost.js';
import { vaultSpend } from '../test/vault-spend';
import { hexToBytes } from './canonical';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';

const ids = [1, 2, 3].map(frostIdentifier);

/** A 2-of-3 dealt key; its group point may have either y, BIP-340 uses its x only. */
function deal(): DealerShares {
  return frost.trustedDealer({ min: 2, max: 3 }, ids);
}

function signWith(d: DealerShares, signers: string[], msg: Uint8Array) {
  const round1 = signers.map((id) => ({ id, ...frost.commit(d.secretShares[id]!) }));
  const list = round1.map((r) => r.commitments);
  const shares = Object.fromEntries(
    round1.map((r) => [
      r.id,
      frost.signShare(d.secretShares[r.id]!, d.public, r.nonces, list, msg),
    ]),
  );
  return { list, shares };
}

const msg = schnorr.utils.taggedHash('unit/test', new Uint8Array([1, 2, 3]));

describe('FROST 2-of-3 (secp256k1 Taproot suite)', () => {
  const d = deal();
  const groupKey = Uint8Array.from(Buffer.from(groupKeyXOnly(publicToJson(d.public)), 'hex'));

  it('any two guardians produce a BIP-340 signature under the x-only group key', () => {
    for (const pair of [
      [ids[0]!, ids[1]!],
      [ids[0]!, ids[2]!],
      [ids[1]!, ids[2]!],
    ]) {
      const { list, shares } = signWith(d, pair, msg);
      const sig = frost.aggregate(d.public, list, msg, shares);
      expect(schnorr.verify(sig, msg, groupKey)).toBe(true);
    }
  });

  it('one share (t-1) cannot sign', () => {
    expect(() => signWith(d, [ids[0]!], msg)).toThrow(/Wrong number of commitments/);
    // Nor can one guardian fake the second share: it fails the share check and the signature.
    const two = signWith(d, [ids[0]!, ids[1]!], msg);
    const forged = { ...two.shares, [ids[1]!]: frost.utils.randomScalar() };
    expect(frost.verifyShare(d.public, two.list, msg, ids[1]!, forged[ids[1]!]!)).toBe(false);
    expect(frost.verifyShare(d.public, two.list, msg, ids[0]!, forged[ids[0]!]!)).toBe(true);
    expect(() => frost.aggregate(d.public, two.list, msg, forged)).toThrow();
  });

  it('a nonce is consumed by signing: the same nonces cannot sign a second message', () => {
    const r1 = frost.commit(d.secretShares[ids[0]!]!);
    const r2 = frost.commit(d.secretShares[ids[1]!]!);
    const list = [r1.commitments, r2.commitments];
    frost.signShare(d.secretShares[ids[0]!]!, d.public, r1.nonces, list, msg);
    expect(() =>
      frost.signShare(d.secretShares[ids[0]!]!, d.public, r1.nonces, list, new Uint8Array(32)),
    ).toThrow(/already used/);
  });

  it('the group key is guard_pubkey of a vault and its signature passes the vault-spend check', () => {
    const spend = vaultSpend(groupKey);
    const { list, shares } = signWith(d, [ids[1]!, ids[2]!], spend.sighash);
    expect(spend.finish(frost.aggregate(d.public, list, spend.sighash, shares))).toEqual({
      ok: true,
    });
  });
});

function dkg() {
  const signers = { min: 2, max: 3 };
  const r1 = ids.map((id) => frost.DKG.round1(id, signers));
  const r2 = r1.map((me) =>
    frost.DKG.round2(
      me.secret,
      r1.filter((o) => o !== me).map((o) => o.public),
    ),
  );
  return r1.map((me, i) =>
    frost.DKG.round3(
      me.secret,
      r1.filter((o) => o !== me).map((o) => o.public),
      r2.filter((_, j) => j !== i).map((pkgs) => pkgs[ids[i]!]!),
    ),
  );
}

describe('FROST DKG (library level, in one process)', () => {
  it('three rounds give every guardian the same group key and a valid share', () => {
    const keys = dkg();
    const groups = keys.map((k) => groupKeyXOnly(publicToJson(k.public)));
    expect(new Set(groups).size).toBe(1);
    for (const k of keys) frost.validateSecret(k.secret, k.public);
  });

  it('a DKG key signs vault spends whichever y its (Taproot-tweaked) group point has', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const keys = dkg();
      const pub = keys[0]!.public;
      const parity = pub.commitments[0]![0]!;
      if (seen.has(parity)) continue;
      seen.add(parity);
      const spend = vaultSpend(hexToBytes(groupKeyXOnly(publicToJson(pub))));
      const signers = [keys[0]!, keys[2]!];
      const round1 = signers.map((k) => frost.commit(k.secret));
      const list = round1.map((r) => r.commitments);
      const shares = Object.fromEntries(
        signers.map((k, i) => [
          k.secret.identifier,
          frost.signShare(k.secret, k.public, round1[i]!.nonces, list, spend.sighash),
        ]),
      );
      expect(spend.finish(frost.aggregate(pub, list, spend.sighash, shares))).toEqual({ ok: true });
    }
    expect([...seen].sort()).toEqual([0x02, 0x03]);
  });
});
