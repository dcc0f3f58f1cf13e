// A repair's messages, as bodies in and out (reshare-math.ts has the arithmetic). The guardian being
// repaired lost its share but kept its seat: its identity key restored from the operator's backup,
// so the installed set stays exactly as signed. Each helper sends every other helper a
// `repair/piece` {session, from, points, box}: its published piece points and that helper's masked
// piece sealed to it. Each helper then sends the repaired guardian a `repair/sum` {session, from,
// points, box}: its own points again and the sum of the pieces it received, sealed. No helper sees
// more than one masked piece of another's contribution, so none learns the share.
import { bytesToHex, parseHex, type Json } from './canonical';
import { ProtocolError } from './envelope';
import { open, seal, shareKey, SESSION_RE } from './dkg-share-box';
import { frostIdentifier } from './frost';
import type { GuardianSet, Member } from './guardian-set';
import type { Identity } from './identity';
import {
  BlameError,
  checkRepairPiece,
  checkRepairPoints,
  pointFromBytes,
  repairCombine,
  repairPieces,
  repairSum,
  scalarFromBytes,
  scalarToBytes,
  type CurvePoint,
} from './reshare-math';
import type { MessageBody } from './messages';

type RepairPart = MessageBody<'repair/piece' | 'repair/sum'>;

export interface RepairSpec {
  session: string;
  set: GuardianSet;
  /** the id of the guardian whose share is rebuilt */
  lost: number;
  /** ids of the t (or more) members that rebuild it, never `lost` */
  helpers: number[];
}

const sessionKey = (session: string): string => `repair/${session}`;

export function checkRepairSpec(s: RepairSpec): void {
  if (!SESSION_RE.test(s.session))
    throw new ProtocolError('malformed', 'a repair session is 16 bytes of hex');
  const ids = new Set(s.helpers);
  if (ids.size !== s.helpers.length || s.helpers.length < s.set.t)
    throw new ProtocolError('refused', `a repair needs ${s.set.t} distinct helpers`);
  if (ids.has(s.lost))
    throw new ProtocolError('refused', 'the guardian being repaired cannot help');
  for (const id of [...s.helpers, s.lost])
    if (!s.set.members.some((m) => m.id === id))
      throw new ProtocolError('refused', `guardian ${id} is not a member of the installed set`);
}

const member = (s: RepairSpec, id: number): Member => s.set.members.find((m) => m.id === id)!;
const verifyingShare = (s: RepairSpec, id: number): CurvePoint =>
  pointFromBytes(parseHex(s.set.frost!.verifyingShares[frostIdentifier(id)], 33));

/** `points` from a body: one point per helper in `helpers` order, checked against its sender. */
function parsePoints(s: RepairSpec, from: number, raw: unknown): Map<number, CurvePoint> {
  if (!Array.isArray(raw) || raw.length !== s.helpers.length)
    throw new ProtocolError('malformed', `repair points list one point per helper`);
  let points: Map<number, CurvePoint>;
  try {
    points = new Map(s.helpers.map((j, k) => [j, pointFromBytes(parseHex(raw[k], 33))]));
  } catch {
    throw new ProtocolError('malformed', 'a repair point is not a curve point');
  }
  try {
    checkRepairPoints(from, points, s.helpers, s.lost, verifyingShare(s, from));
  } catch (e) {
    throw new ProtocolError('refused', (e as Error).message);
  }
  return points;
}

/** Cheap checks of a body's session and sender, before any curve arithmetic. */
function checkSender(s: RepairSpec, senderKey: string, b: RepairPart): RepairPart {
  if (b.session !== s.session)
    throw new ProtocolError('refused', 'this message belongs to another repair session');
  if (!s.helpers.includes(b.from))
    throw new ProtocolError('refused', 'the message names no helper of this repair');
  if (member(s, b.from).identityKey !== senderKey)
    throw new ProtocolError(
      'refused',
      `the message of guardian ${b.from} is signed by another key`,
    );
  return b;
}

/** One helper's part: its pieces out, the others' pieces in, its sum out. */
export class RepairHelper {
  private readonly mine: { pieces: Map<number, bigint>; points: Map<number, CurvePoint> };
  private readonly got = new Map<number, bigint>();

  constructor(
    private readonly identity: Identity,
    private readonly id: number,
    signingShare: Uint8Array,
    private readonly spec: RepairSpec,
    /** Test fixtures only (a malicious helper): rewrites its sum before it is sealed. */
    private readonly tamperSum?: (sum: Uint8Array) => Uint8Array,
  ) {
    checkRepairSpec(spec);
    if (!spec.helpers.includes(id) || member(spec, id).identityKey !== identity.publicKey)
      throw new ProtocolError('refused', 'this guardian is no helper of this repair');
    this.mine = repairPieces(id, scalarFromBytes(signingShare), spec.helpers, spec.lost);
    this.got.set(id, this.mine.pieces.get(id)!);
  }

  private pointsJson(): Json {
    return this.spec.helpers.map((j) => bytesToHex(this.mine.points.get(j)!.toBytes(true)));
  }

  private sealTo(to: Member, value: bigint, tamper = (b: Uint8Array) => b): Json {
    const key = shareKey(this.identity, to.identityKey, sessionKey(this.spec.session));
    return seal(key, this.identity.publicKey, to.identityKey, tamper(scalarToBytes(value)));
  }

  /** The `repair/piece` body for each other helper, by id. */
  pieceBodies(): Map<number, Json> {
    const { spec } = this;
    const out = new Map<number, Json>();
    for (const j of spec.helpers.filter((x) => x !== this.id)) {
      const box = this.sealTo(member(spec, j), this.mine.pieces.get(j)!);
      out.set(j, { session: spec.session, from: this.id, points: this.pointsJson(), box });
    }
    return out;
  }

  /** Another helper's piece: refused, or naming its sender when it fails its own points. */
  receivePiece(senderKey: string, body: RepairPart): { received: true } {
    const b = checkSender(this.spec, senderKey, body);
    const { from } = b;
    if (this.got.has(from))
      throw new ProtocolError('replayed', `guardian ${from} already sent its piece`, 409);
    const points = parsePoints(this.spec, from, b.points);
    const key = shareKey(this.identity, senderKey, sessionKey(this.spec.session));
    const plain = open(key, senderKey, this.identity.publicKey, b.box);
    try {
      if (!plain) throw new BlameError(from, `the repair piece of guardian ${from} does not open`);
      const piece = scalarFromBytes(plain);
      checkRepairPiece(from, piece, points.get(this.id)!);
      this.got.set(from, piece);
    } catch (e) {
      throw new ProtocolError('refused', (e as Error).message);
    }
    return { received: true };
  }

  /** The `repair/sum` body for the repaired guardian, once every helper's piece is in. */
  sumBody(): Json {
    const missing = this.spec.helpers.filter((j) => !this.got.has(j));
    if (missing.length > 0)
      throw new ProtocolError(
        'not-ready',
        `no repair piece yet from guardian ${missing.join(', ')}`,
      );
    const sum = repairSum([...this.got.values()]);
    const box = this.sealTo(member(this.spec, this.spec.lost), sum, this.tamperSum);
    return { session: this.spec.session, from: this.id, points: this.pointsJson(), box };
  }
}

/** The repaired guardian's part: every helper's sum in, its share out. */
export class RepairTarget {
  private readonly sums = new Map<number, bigint>();
  private readonly points = new Map<number, Map<number, CurvePoint>>();

  constructor(
    private readonly identity: Identity,
    private readonly spec: RepairSpec,
  ) {
    checkRepairSpec(spec);
    if (member(spec, spec.lost).identityKey !== identity.publicKey)
      throw new ProtocolError('refused', 'this guardian is not the one being repaired');
  }

  receiveSum(senderKey: string, body: RepairPart): { received: true } {
    const b = checkSender(this.spec, senderKey, body);
    const { from } = b;
    if (this.sums.has(from))
      throw new ProtocolError('replayed', `guardian ${from} already sent its sum`, 409);
    const points = parsePoints(this.spec, from, b.points);
    const key = shareKey(this.identity, senderKey, sessionKey(this.spec.session));
    const plain = open(key, senderKey, this.identity.publicKey, b.box);
    let sum: bigint;
    try {
      sum = scalarFromBytes(plain ?? new Uint8Array());
    } catch {
      throw new ProtocolError('refused', `the repair sum of guardian ${from} does not open`);
    }
    this.sums.set(from, sum);
    this.points.set(from, points);
    return { received: true };
  }

  /** The rebuilt share, checked against the set's own verification share of this seat. */
  finish(): { signingShare: Uint8Array } | { blame: { guardian: number; why: string } } {
    const { spec } = this;
    const missing = spec.helpers.filter((j) => !this.sums.has(j));
    if (missing.length > 0)
      throw new ProtocolError('not-ready', `no repair sum yet from guardian ${missing.join(', ')}`);
    try {
      const share = repairCombine(
        this.sums,
        this.points,
        spec.helpers,
        verifyingShare(spec, spec.lost),
      );
      return { signingShare: scalarToBytes(share) };
    } catch (e) {
      if (e instanceof BlameError) return { blame: { guardian: e.culprit, why: e.message } };
      throw e;
    }
  }
}
