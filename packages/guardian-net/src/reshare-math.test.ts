// Resharing and repair arithmetic on real DKG keys (Taproot-tweaked as the guardians hold them):
// the group key survives, the new shares sign under it, and a dealer or helper that lies is named.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import type { FrostPublic, FrostSecret } from '@noble/curves/abstract/frost.js';
import { bytesToHex, hexToBytes } from './canonical';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';
import {
  BlameError,
  checkDealerCommitments,
  checkRepairPiece,
  checkRepairPoints,
  checkSubShare,
  combinePublic,
  combineShare,
  dealReshare,
  pointFromBytes,
  repairCombine,
  repairPieces,
  repairSum,
  scalarFromBytes,
  scalarToBytes,
  type CurvePoint,
} from './reshare-math';

interface Keys {
  pub: FrostPublic;
  shares: Map<number, bigint>;
}

function dkg(t: number, n: number): Keys {
  const ids = Array.from({ length: n }, (_, i) => frostIdentifier(i + 1));
  const r1 = ids.map((id) => frost.DKG.round1(id, { min: t, max: n }));
  const r2 = r1.map((me) =>
    frost.DKG.round2(
      me.secret,
      r1.filter((o) => o !== me).map((o) => o.public),
    ),
  );
  const out = r1.map((me, i) =>
    frost.DKG.round3(
      me.secret,
      r1.filter((o) => o !== me).map((o) => o.public),
      r2.filter((_, j) => j !== i).map((pkgs) => pkgs[ids[i]!]!),
    ),
  );
  return {
    pub: out[0]!.public,
    shares: new Map(out.map((k, i) => [i + 1, scalarFromBytes(k.secret.signingShare)])),
  };
}

const Y = (pub: FrostPublic, id: number): CurvePoint =>
  pointFromBytes(pub.verifyingShares[frostIdentifier(id)]!);
const groupHex = (pub: FrostPublic): string => bytesToHex(pub.commitments[0]!);

/** The whole resharing run in one place: dealers D of the old keys to `newIds` at `newT`. */
function reshare(old: Keys, dealers: number[], newIds: number[], newT: number): Keys {
  const deals = dealers.map((d) => {
    const deal = dealReshare(d, old.shares.get(d)!, dealers, newIds, newT);
    checkDealerCommitments(d, deal.commitments, Y(old.pub, d), dealers, newT);
    return { d, deal };
  });
  const pub = combinePublic(
    deals.map((x) => x.deal.commitments),
    newIds,
    newT,
    groupHex(old.pub),
  );
  const shares = new Map<number, bigint>();
  for (const j of newIds) {
    const subs = deals.map(({ d, deal }) => {
      const s = deal.subShares.get(j)!;
      checkSubShare(d, j, s, deal.commitments);
      return s;
    });
    shares.set(j, combineShare(j, subs, pub));
  }
  return { pub, shares };
}

function signs(keys: Keys, signers: number[]): boolean {
  const msg = schnorr.utils.taggedHash('unit/reshare', new Uint8Array([7]));
  const secrets: FrostSecret[] = signers.map((id) => ({
    identifier: frostIdentifier(id),
    signingShare: scalarToBytes(keys.shares.get(id)!),
  }));
  for (const s of secrets) frost.validateSecret(s, keys.pub);
  const round1 = secrets.map((s) => frost.commit(s));
  const list = round1.map((r) => r.commitments);
  const sigShares = Object.fromEntries(
    secrets.map((s, i) => [
      s.identifier,
      frost.signShare(s, keys.pub, round1[i]!.nonces, list, msg),
    ]),
  );
  const sig = frost.aggregate(keys.pub, list, msg, sigShares);
  return schnorr.verify(sig, msg, hexToBytes(groupKeyXOnly(publicToJson(keys.pub))));
}

describe('resharing keeps the group key', () => {
  const cases: [number, number, number[], number[], number][] = [
    // t, n, dealers, new roster, new t
    [2, 3, [1, 3], [1, 3, 4], 2], // replace 2 by 4
    [2, 3, [2, 3], [1, 2, 3], 2], // refresh every share
    [2, 3, [1, 2], [1, 2, 3, 4], 3], // add a member and raise t
    [3, 5, [2, 4, 5], [1, 2, 4, 5], 3], // remove 3
    [3, 5, [1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 3], // every dealer, an all-new roster
  ];
  for (const [t, n, dealers, newIds, newT] of cases) {
    it(`${t}-of-${n} dealt by [${dealers}] to [${newIds}] at ${newT}`, () => {
      const old = dkg(t, n);
      const next = reshare(old, dealers, newIds, newT);
      expect(groupKeyXOnly(publicToJson(next.pub))).toBe(groupKeyXOnly(publicToJson(old.pub)));
      expect(signs(next, newIds.slice(0, newT))).toBe(true);
      expect(signs(next, newIds.slice(-newT))).toBe(true);
      // A refresh gives new values even to members who stay.
      for (const id of newIds.filter((x) => old.shares.has(x)))
        expect(next.shares.get(id)).not.toBe(old.shares.get(id));
    });
  }

  it('an old share is no share of the new set: mixed with a new one it does not sign', () => {
    const old = dkg(2, 3);
    const next = reshare(old, [1, 3], [1, 3, 4], 2);
    const mixed: Keys = {
      pub: next.pub,
      shares: new Map([
        [1, old.shares.get(1)!],
        [3, next.shares.get(3)!],
      ]),
    };
    expect(() => signs(mixed, [1, 3])).toThrow();
  });

  it('fewer than t dealers cannot reproduce the key', () => {
    const old = dkg(3, 5);
    expect(() => reshare(old, [1, 2], [1, 2, 3, 4, 5], 3)).toThrow(
      /do not reproduce the group key|own share/,
    );
  });

  it('a dealer that deals something else than its weighted share is named by its commitments', () => {
    const old = dkg(2, 3);
    const dealers = [1, 2];
    const bad = dealReshare(2, old.shares.get(2)! + 1n, dealers, [1, 2, 3], 2);
    const err = (() => {
      try {
        checkDealerCommitments(2, bad.commitments, Y(old.pub, 2), dealers, 2);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(BlameError);
    expect((err as BlameError).culprit).toBe(2);
  });

  it('a wrong sub-share names its dealer', () => {
    const old = dkg(2, 3);
    const deal = dealReshare(3, old.shares.get(3)!, [1, 3], [1, 3, 4], 2);
    checkSubShare(3, 4, deal.subShares.get(4)!, deal.commitments);
    expect(() => checkSubShare(3, 4, deal.subShares.get(4)! + 1n, deal.commitments)).toThrow(
      /guardian 3 sent a sub-share/,
    );
    // The right value checked at another recipient's index fails too.
    expect(() => checkSubShare(3, 1, deal.subShares.get(4)!, deal.commitments)).toThrow(BlameError);
  });
});

function repair(
  old: Keys,
  helpers: number[],
  lost: number,
  tamper?: (from: number, to: number, v: bigint) => bigint,
) {
  const dealt = helpers.map((i) => ({ i, ...repairPieces(i, old.shares.get(i)!, helpers, lost) }));
  for (const { i, points } of dealt) checkRepairPoints(i, points, helpers, lost, Y(old.pub, i));
  const sums = new Map<number, bigint>();
  for (const j of helpers) {
    const got = dealt.map(({ i, pieces, points }) => {
      const v = tamper ? tamper(i, j, pieces.get(j)!) : pieces.get(j)!;
      checkRepairPiece(i, v, points.get(j)!);
      return v;
    });
    sums.set(j, repairSum(got));
  }
  const points = new Map(dealt.map(({ i, points: p }) => [i, p]));
  return { sums, points, share: () => repairCombine(sums, points, helpers, Y(old.pub, lost)) };
}

describe('repair rebuilds a lost share from t helpers', () => {
  for (const [t, n, helpers, lost] of [
    [2, 3, [1, 3], 2],
    [3, 5, [1, 4, 5], 3],
    [3, 5, [2, 3, 4, 5], 1],
  ] as [number, number, number[], number][]) {
    it(`${t}-of-${n}: [${helpers}] repair ${lost}`, () => {
      const old = dkg(t, n);
      const r = repair(old, helpers, lost);
      expect(r.share()).toBe(old.shares.get(lost));
      // No helper's sum is the share, and a sum alone is random-looking: only the total is.
      for (const s of r.sums.values()) expect(s).not.toBe(old.shares.get(lost));
    });
  }

  it('a helper that splits a wrong value is named by its published points', () => {
    const old = dkg(2, 3);
    const { points } = repairPieces(1, old.shares.get(1)! + 5n, [1, 3], 2);
    expect(() => checkRepairPoints(1, points, [1, 3], 2, Y(old.pub, 1))).toThrow(
      /guardian 1 split/,
    );
  });

  it('a piece that differs from its point names its sender', () => {
    const old = dkg(2, 3);
    expect(() =>
      repair(old, [1, 3], 2, (from, to, v) => (from === 3 && to === 1 ? v + 1n : v)),
    ).toThrow(/guardian 3 sent a repair piece/);
  });

  it('a helper that sends a wrong sum is named, and the result is never a wrong share', () => {
    const old = dkg(2, 3);
    const r = repair(old, [1, 3], 2);
    r.sums.set(3, r.sums.get(3)! + 1n);
    expect(() => r.share()).toThrow(/guardian 3 sent a repair sum/);
  });

  it('the repaired guardian cannot help repair itself', () => {
    const old = dkg(2, 3);
    expect(() => repairPieces(1, old.shares.get(1)!, [1, 2], 2)).toThrow(/cannot help/);
  });
});
