// Changing who holds the group key without changing the key: the arithmetic, free of I/O.
//
// Resharing (Desmedt–Jajodia redistribution, with Feldman commitments): a dealing set D of at least
// t old members, each old member i dealing a fresh polynomial g_i of degree t'-1 with
// g_i(0) = λ_i·s_i (its Lagrange-weighted share over D), so Σ g_i(0) = s, the group secret. Each new
// member j gets g_i(j) from every dealer and adds them; the sum is a share of the same s for the new
// roster and threshold t'. Every dealer publishes C_ik = a_ik·G: a new member checks its sub-share
// against them (a bad one names its dealer), and C_i0 must equal λ_i·Y_i (Y_i the dealer's published
// verification share), so a dealer cannot deal anything but its real weighted share.
//
// Repair (Stinson–Wei's repairable threshold scheme, as Zcash Foundation's frost ships it): t
// helpers H rebuild the share at a lost index r. Helper i computes δ_i = λ_i(r)·s_i (Lagrange at x=r
// over H, so Σ δ_i = s_r) and splits it into |H| random pieces δ_ij, one to each helper j; helper j
// sends only σ_j = Σ_i δ_ij to r, who adds them. No helper sees another's δ_i, so none learns s_r.
// Each helper also publishes P_ij = δ_ij·G: helper j checks its piece from i, r checks each σ_j, and
// anyone checks Σ_j P_ij = λ_i(r)·Y_i, so a wrong piece names who sent it.
//
// Shares here are the guardians' stored signing shares (the DKG output after its Taproot tweak): the
// tweak is in the constant term already, so resharing keeps the same (tweaked) group key.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { FrostPublic } from '@noble/curves/abstract/frost.js';
import { bytesToHex } from './canonical';
import { frostIdentifier } from './frost';

const Point = secp256k1.Point;
const Fn = Point.Fn;
type P = InstanceType<typeof Point>;

/** A check of the resharing or repair math that failed, naming the member at fault. */
export class BlameError extends Error {
  constructor(
    readonly culprit: number,
    message: string,
  ) {
    super(message);
  }
}

function distinctIds(ids: readonly number[], what: string): void {
  if (ids.length === 0 || new Set(ids).size !== ids.length)
    throw new Error(`${what} must be distinct guardian ids`);
  for (const id of ids)
    if (!Number.isSafeInteger(id) || id < 1) throw new Error(`${what}: ${id} is not a guardian id`);
}

/** λ_i(x) over `ids`: the Lagrange coefficient of member `i` when interpolating at `x`. */
export function lagrange(ids: readonly number[], i: number, x = 0): bigint {
  distinctIds(ids, 'interpolation set');
  if (!ids.includes(i)) throw new Error(`guardian ${i} is not in the interpolation set`);
  let num = 1n;
  let den = 1n;
  const xi = BigInt(i);
  for (const j of ids) {
    if (j === i) continue;
    num = Fn.mul(num, Fn.sub(Fn.create(BigInt(x)), BigInt(j)));
    den = Fn.mul(den, Fn.sub(xi, BigInt(j)));
  }
  return Fn.mul(num, Fn.inv(den));
}

function randomScalar(): bigint {
  for (;;) {
    const k = Fn.fromBytes(secp256k1.utils.randomSecretKey());
    if (k !== 0n) return k;
  }
}

/** Σ C_k·x^k: the point a sub-share at `x` must be the discrete log of. */
export function evaluateCommitment(commitments: readonly P[], x: number): P {
  let acc = Point.ZERO;
  let pow = 1n;
  for (const c of commitments) {
    acc = acc.add(c.multiplyUnsafe(pow));
    pow = Fn.mul(pow, BigInt(x));
  }
  return acc;
}

/** What one old member deals: its polynomial's commitments and one sub-share per new member. */
export interface ReshareDeal {
  commitments: P[];
  subShares: Map<number, bigint>;
}

/** Old member `dealer`'s deal of λ·share to `newIds` with threshold `newT` (dealers: the set D). */
export function dealReshare(
  dealer: number,
  share: bigint,
  dealers: readonly number[],
  newIds: readonly number[],
  newT: number,
): ReshareDeal {
  distinctIds(newIds, 'new roster');
  if (!Number.isSafeInteger(newT) || newT < 1 || newT > newIds.length)
    throw new Error('new threshold must be between 1 and the new roster size');
  const coefficients = [Fn.mul(lagrange(dealers, dealer), share)];
  for (let k = 1; k < newT; k++) coefficients.push(randomScalar());
  const commitments = coefficients.map((a) => Point.BASE.multiplyUnsafe(a));
  const subShares = new Map<number, bigint>();
  for (const j of newIds) {
    let v = 0n;
    for (let k = coefficients.length - 1; k >= 0; k--)
      v = Fn.add(Fn.mul(v, BigInt(j)), coefficients[k]!);
    subShares.set(j, v);
  }
  return { commitments, subShares };
}

/**
 * A dealer's commitments checked against the public old set: the right length, and a constant term
 * that is exactly λ·Y of that dealer (so it dealt its own weighted share, nothing else).
 */
export function checkDealerCommitments(
  dealer: number,
  commitments: readonly P[],
  oldVerifyingShare: P,
  dealers: readonly number[],
  newT: number,
): void {
  if (commitments.length !== newT)
    throw new BlameError(
      dealer,
      `guardian ${dealer} committed to a polynomial of the wrong degree`,
    );
  const expected = oldVerifyingShare.multiplyUnsafe(lagrange(dealers, dealer));
  if (!commitments[0]!.equals(expected))
    throw new BlameError(dealer, `guardian ${dealer} did not deal its own share of the group key`);
}

/** A new member's check of one sub-share against its dealer's commitments. */
export function checkSubShare(
  dealer: number,
  recipient: number,
  subShare: bigint,
  commitments: readonly P[],
): void {
  const ok =
    subShare > 0n &&
    subShare < Fn.ORDER &&
    Point.BASE.multiply(subShare).equals(evaluateCommitment(commitments, recipient));
  if (!ok)
    throw new BlameError(dealer, `guardian ${dealer} sent a sub-share its commitments do not hold`);
}

/**
 * The new roster's public FROST package from every dealer's commitments, refused unless it
 * reproduces `groupKey` (compressed, hex): the key vaults are locked to cannot change here.
 */
export function combinePublic(
  deals: readonly (readonly P[])[],
  newIds: readonly number[],
  newT: number,
  groupKey: string,
): FrostPublic {
  if (deals.length === 0) throw new Error('a resharing needs at least one dealer');
  const commitments: P[] = [];
  for (let k = 0; k < newT; k++)
    commitments.push(deals.reduce((acc, d) => acc.add(d[k]!), Point.ZERO));
  if (commitments[0]!.is0() || bytesToHex(commitments[0]!.toBytes(true)) !== groupKey)
    throw new Error('the new shares do not reproduce the group key; nothing was installed');
  const verifyingShares: Record<string, Uint8Array<ArrayBuffer>> = {};
  for (const j of newIds)
    verifyingShares[frostIdentifier(j)] = Uint8Array.from(
      evaluateCommitment(commitments, j).toBytes(true),
    );
  return {
    signers: { min: newT, max: newIds.length },
    commitments: commitments.map((c) => Uint8Array.from(c.toBytes(true))),
    verifyingShares,
  };
}

/** A new member's share: the sum of its checked sub-shares, refused if it is not what `pub` says. */
export function combineShare(recipient: number, subShares: readonly bigint[], pub: FrostPublic) {
  const share = subShares.reduce((acc, s) => Fn.add(acc, s), 0n);
  const expected = pub.verifyingShares[frostIdentifier(recipient)];
  if (share === 0n || !expected || !Point.BASE.multiply(share).equals(Point.fromBytes(expected)))
    throw new Error(`the sub-shares of guardian ${recipient} do not add up to its public share`);
  return share;
}

/** Helper `helper`'s first repair step: δ split into one masked piece per helper, with their points. */
export function repairPieces(
  helper: number,
  share: bigint,
  helpers: readonly number[],
  lost: number,
) {
  if (helpers.includes(lost)) throw new Error('the guardian being repaired cannot help repair');
  const delta = Fn.mul(lagrange(helpers, helper, lost), share);
  const pieces = new Map<number, bigint>();
  let rest = delta;
  helpers.forEach((j, idx) => {
    const piece = idx === helpers.length - 1 ? rest : randomScalar();
    rest = Fn.sub(rest, piece);
    pieces.set(j, piece);
  });
  const points = new Map([...pieces].map(([j, v]) => [j, Point.BASE.multiplyUnsafe(v)]));
  return { pieces, points };
}

/** Anyone's check of a helper's published piece points: they add up to λ_i(r)·Y_i. */
export function checkRepairPoints(
  helper: number,
  points: ReadonlyMap<number, P>,
  helpers: readonly number[],
  lost: number,
  verifyingShare: P,
): void {
  const sum = helpers.reduce((acc, j) => {
    const p = points.get(j);
    if (!p) throw new BlameError(helper, `guardian ${helper} left out a repair piece`);
    return acc.add(p);
  }, Point.ZERO);
  if (
    points.size !== helpers.length ||
    !sum.equals(verifyingShare.multiplyUnsafe(lagrange(helpers, helper, lost)))
  )
    throw new BlameError(helper, `guardian ${helper} split something other than its own share`);
}

/** Helper j's check of the piece helper i sent it. */
export function checkRepairPiece(from: number, piece: bigint, point: P): void {
  if (piece >= Fn.ORDER || !Point.BASE.multiplyUnsafe(piece).equals(point))
    throw new BlameError(
      from,
      `guardian ${from} sent a repair piece its published point does not hold`,
    );
}

/** Helper j's sum of its pieces: the only value it sends to the repaired guardian. */
export function repairSum(pieces: readonly bigint[]): bigint {
  return pieces.reduce((acc, s) => Fn.add(acc, s), 0n);
}

/**
 * The repaired guardian's share from every helper's sum; each sum checked against the published
 * piece points (naming a helper that lied), and the result against its public verification share.
 */
export function repairCombine(
  sums: ReadonlyMap<number, bigint>,
  pointsByHelper: ReadonlyMap<number, ReadonlyMap<number, P>>,
  helpers: readonly number[],
  verifyingShare: P,
): bigint {
  let share = 0n;
  for (const j of helpers) {
    const sigma = sums.get(j);
    if (sigma === undefined) throw new BlameError(j, `guardian ${j} sent no repair sum`);
    const expected = helpers.reduce(
      (acc, i) => acc.add(pointsByHelper.get(i)?.get(j) ?? Point.ZERO),
      Point.ZERO,
    );
    if (sigma >= Fn.ORDER || !Point.BASE.multiplyUnsafe(sigma).equals(expected))
      throw new BlameError(j, `guardian ${j} sent a repair sum its pieces do not hold`);
    share = Fn.add(share, sigma);
  }
  if (share === 0n || !Point.BASE.multiply(share).equals(verifyingShare))
    throw new Error('the repaired share is not the one the set publishes; nothing was written');
  return share;
}

export const scalarToBytes = (k: bigint): Uint8Array<ArrayBuffer> => Uint8Array.from(Fn.toBytes(k));
export const scalarFromBytes = (b: Uint8Array): bigint => Fn.fromBytes(b);
export const pointFromBytes = (b: Uint8Array): P => Point.fromBytes(b);
export type { P as CurvePoint };
