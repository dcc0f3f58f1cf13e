// A guardian's side of the distributed key generation (three rounds of RFC 9591 FROST's DKG), from
// its roster to the set it signs. Round-2 shares travel guardian to guardian, encrypted to the
// receiver; the coordinator only relays signed public packages and cannot invent one.
import type {
  DKG_Round1,
  DKG_Secret,
  FrostPublic,
  FrostSecret,
} from '@noble/curves/abstract/frost.js';
import { bytesToHex, canonicalJson, parseHex, type Json } from './canonical';
import { ProtocolError, type Wire } from './envelope';
import { evidence, open, seal, shareHolds, shareKey, type BlameEvidence } from './dkg-share-box';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson } from './frost';
import {
  parseSetBody,
  setBodyJson,
  signSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import type { Identity } from './identity';
import { callParty, checkReply } from './transport';
import { seededRound1 } from './dkg-seed';
import { parseMessageAnswer, type MessageBody } from './messages';

interface DkgState {
  secret: DKG_Secret;
  /** each peer's share key of this session (an ECDH), made once for sealing and opening */
  keys: Map<string, Uint8Array>;
  round1: DKG_Round1[];
  /** each sender's signed `dkg/share` message, by guardian id, kept as evidence */
  received: Map<number, { wire: Wire; box: unknown }>;
  result?: { public: FrostPublic; secret: FrostSecret };
}

/** Test fixtures only (a malicious guardian): rewrites a share before it is encrypted. */
export type TamperDkgShare = (share: Uint8Array, to: number) => Uint8Array;

function round1ToJson(p: DKG_Round1): Json {
  return {
    identifier: p.identifier,
    commitment: p.commitment.map(bytesToHex),
    proofOfKnowledge: bytesToHex(p.proofOfKnowledge),
  };
}

export function round1FromJson(raw: unknown, t: number): DKG_Round1 {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.identifier !== 'string' || !Array.isArray(r.commitment) || r.commitment.length !== t)
    throw new ProtocolError('malformed', 'bad DKG round-1 package');
  return {
    identifier: r.identifier,
    commitment: r.commitment.map((c) => parseHex(c, 33, 'DKG commitment')),
    proofOfKnowledge: parseHex(r.proofOfKnowledge, 64, 'proof of knowledge'),
  };
}

/** One guardian's DKG, from its roster; dropped once the set is installed. */
export class DkgRounds {
  private state?: DkgState;

  constructor(
    private readonly id: number,
    private readonly identity: Identity,
    readonly roster: GuardianSetBody,
    /** the coordinator's session for this attempt ('' for a DKG started from a roster file) */
    readonly session = '',
    private readonly tamper?: TamperDkgShare,
  ) {}

  round1(): unknown {
    const { roster } = this;
    if (!this.state) {
      // A first DKG's polynomial is drawn from the identity key, so the guardian can rebuild its
      // share from that key and the transcript (dkg-recovery.ts); a rotation's is random.
      const r1 = this.session
        ? seededRound1(this.identity, this.id, this.session, roster)
        : frost.DKG.round1(frostIdentifier(this.id), { min: roster.t, max: roster.n });
      this.state = { secret: r1.secret, keys: new Map(), round1: [r1.public], received: new Map() }; // prettier-ignore
    }
    return { package: round1ToJson(this.state.round1[0]!) };
  }

  async round2(body: MessageBody<'dkg/round2'>): Promise<unknown> {
    const { roster } = this;
    const dkg = this.state;
    if (!dkg) throw new ProtocolError('not-ready', 'dkg/round1 first');
    const wires = body.round1;
    const others = roster.members.filter((m) => m.id !== this.id);
    if (!Array.isArray(wires) || wires.length !== others.length)
      throw new ProtocolError('malformed', 'dkg/round2 needs the n-1 other round-1 packages');
    // Each package must carry its guardian's own signature: a coordinator cannot invent one.
    const packages = others.map((m, i) => {
      const payload = checkReply(wires[i]!, m.identityKey);
      if (payload.type !== 'dkg/round1')
        throw new ProtocolError('malformed', 'not a round-1 package');
      const pkg = round1FromJson(parseMessageAnswer('dkg/round1', payload.body).package, roster.t);
      if (pkg.identifier !== frostIdentifier(m.id))
        throw new ProtocolError(
          'malformed',
          `round-1 package of guardian ${m.id} names another id`,
        );
      return pkg;
    });
    const toSend = frost.DKG.round2(dkg.secret, packages);
    dkg.round1 = [dkg.round1[0]!, ...packages];
    const me = this.identity.publicKey;
    await Promise.all(
      others.map((m) => {
        const share = toSend[frostIdentifier(m.id)]!.signingShare;
        const key = this.keyOf(dkg, m.identityKey);
        const plain = this.tamper ? this.tamper(share, m.id) : share;
        return callParty({
          url: m.url,
          identity: this.identity,
          to: m.identityKey,
          setVersion: roster.version,
          type: 'dkg/share',
          body: { session: this.session, box: seal(key, me, m.identityKey, plain) },
        }).catch((e: unknown) => {
          const err = e as Error & { cause?: { code?: string } };
          const why = err.cause?.code
            ? `unreachable (${err.cause.code})`
            : err.message.slice(0, 200);
          throw new ProtocolError('refused', `guardian ${m.id} did not take its share: ${why}`);
        });
      }),
    );
    return { sent: others.length };
  }

  /** Keeps a peer's signed share message; the share is opened and checked at `finish`. */
  receive(peer: Member, b: MessageBody<'dkg/share'>, wire: Wire): unknown {
    if (!this.state) throw new ProtocolError('not-ready', 'dkg/round1 first');
    if (b.session !== this.session)
      throw new ProtocolError('refused', 'this share belongs to another DKG session');
    if (this.state.received.has(peer.id))
      throw new ProtocolError('replayed', `guardian ${peer.id} already sent its share`, 409);
    this.state.received.set(peer.id, { wire, box: b.box });
    return { received: true };
  }

  private keyOf(dkg: DkgState, peer: string): Uint8Array {
    let key = dkg.keys.get(peer);
    if (!key) dkg.keys.set(peer, (key = shareKey(this.identity, peer, this.session)));
    return key;
  }

  /**
   * Each received share opened; one that does not open is answered as evidence naming its sender
   * (dkg-share-box.ts), not as a share.
   */
  private openShares(
    dkg: DkgState,
  ): { shares: { identifier: string; signingShare: Uint8Array }[] } | { blame: BlameEvidence } {
    const shares = [];
    for (const m of this.roster.members.filter((x) => x.id !== this.id)) {
      const got = dkg.received.get(m.id)!;
      const key = this.keyOf(dkg, m.identityKey);
      const plain = open(key, m.identityKey, this.identity.publicKey, got.box);
      if (!plain) return { blame: evidence(m.id, got.wire, key) };
      shares.push({ identifier: frostIdentifier(m.id), signingShare: plain });
    }
    return { shares };
  }

  /** The first sender whose share fails its own round-1 commitment, as evidence; else none. */
  private badShare(
    dkg: DkgState,
    shares: { signingShare: Uint8Array }[],
  ): BlameEvidence | undefined {
    // prettier-ignore
    const others = this.roster.members.filter((x) => x.id !== this.id);
    const i = others.findIndex((m, k) => {
      const commitment = dkg.round1.find((r) => r.identifier === frostIdentifier(m.id))!.commitment; // prettier-ignore
      return !shareHolds(this.id, commitment, shares[k]!.signingShare);
    });
    const m = others[i];
    return m && evidence(m.id, dkg.received.get(m.id)!.wire, this.keyOf(dkg, m.identityKey));
  }

  finish(): unknown {
    const { roster } = this;
    const dkg = this.state;
    if (!dkg || dkg.round1.length !== roster.n || dkg.received.size !== roster.n - 1)
      throw new ProtocolError('not-ready', 'DKG rounds 1 and 2 are not complete');
    if (!dkg.result) {
      const opened = this.openShares(dkg);
      if ('blame' in opened) return opened;
      // Round 3 checks every share against its sender's commitment (RFC 9591's vss_verify) and
      // throws on the first that fails; only then is each checked again here to name its sender.
      try {
        dkg.result = frost.DKG.round3(dkg.secret, dkg.round1.slice(1), opened.shares);
      } catch (e) {
        const blame = this.badShare(dkg, opened.shares);
        if (blame) return { blame };
        throw e;
      }
    }
    const pub = publicToJson(dkg.result.public);
    // The signed share messages it received (each sealed to it) go into the public transcript.
    const received = [...dkg.received.values()].map((r) => r.wire) as unknown as Json;
    return { frost: pub, groupKey: groupKeyXOnly(pub), received };
  }

  /** The DKG's result; throws until dkg/finish ran. */
  result(): { public: FrostPublic; secret: FrostSecret } {
    const result = this.state?.result;
    if (!result) throw new ProtocolError('not-ready', 'dkg/finish first');
    return result;
  }

  /** `raw` parsed, if it is exactly this guardian's roster with its own DKG result. */
  ownSetBody(raw: unknown): GuardianSetBody {
    const result = this.result();
    const body = parseSetBody(raw);
    const pub = publicToJson(result.public);
    // A first set is version 1 (its roster is 0); a rotation's roster already has the next version.
    const expected: GuardianSetBody = {
      ...this.roster,
      version: this.roster.version === 0 ? 1 : this.roster.version,
      frost: pub,
      groupKey: groupKeyXOnly(pub),
    };
    if (canonicalJson(setBodyJson(body)) !== canonicalJson(setBodyJson(expected)))
      throw new ProtocolError('refused', 'set differs from this guardian’s roster or DKG result');
    return body;
  }

  signSet(body: MessageBody<'set/sign'>): unknown {
    const set = this.ownSetBody(body.set);
    return { signature: signSet(set, this.identity.secretKey) };
  }

  /** Forgets the DKG secret polynomial once the share is on disk. */
  clean(): void {
    if (this.state) frost.DKG.clean(this.state.secret);
    this.state = undefined;
  }
}
