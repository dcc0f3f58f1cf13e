// A guardian's side of the distributed key generation (three rounds of RFC 9591 FROST's DKG), from
// its roster to the set it signs. Round-2 shares travel guardian to guardian, encrypted to the
// receiver; the coordinator only relays signed public packages and cannot invent one.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type {
  DKG_Round1,
  DKG_Secret,
  FrostPublic,
  FrostSecret,
} from '@noble/curves/abstract/frost.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, canonicalJson, parseHex, utf8ToBytes, type Json } from './canonical';
import { ProtocolError, type Wire } from './envelope';
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

interface DkgState {
  secret: DKG_Secret;
  round1: DKG_Round1[];
  received: Map<string, Uint8Array>;
  result?: { public: FrostPublic; secret: FrostSecret };
}

/** AES-256-GCM under an ECDH key of the two identity keys: a DKG share readable by its receiver only. */
function shareKey(identity: Identity, peer: string): Buffer {
  const shared = secp256k1.getSharedSecret(identity.secretKey, parseHex('02' + peer, 33));
  return Buffer.from(
    sha256(new Uint8Array([...utf8ToBytes('unit/dkg-share'), ...shared.subarray(1)])),
  );
}

function encryptShare(identity: Identity, peer: string, plain: Uint8Array): Json {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', shareKey(identity, peer), iv);
  c.setAAD(Buffer.from(identity.publicKey + peer));
  const ct = Buffer.concat([c.update(plain), c.final()]);
  return { iv: iv.toString('hex'), ct: ct.toString('hex'), tag: c.getAuthTag().toString('hex') };
}

function decryptShare(identity: Identity, peer: string, box: unknown): Uint8Array {
  const b = (box ?? {}) as Record<string, unknown>;
  const d = createDecipheriv('aes-256-gcm', shareKey(identity, peer), parseHex(b.iv, 12, 'iv'));
  d.setAAD(Buffer.from(peer + identity.publicKey));
  d.setAuthTag(parseHex(b.tag, 16, 'tag'));
  return new Uint8Array(Buffer.concat([d.update(parseHex(b.ct, 32, 'ct')), d.final()]));
}

function round1ToJson(p: DKG_Round1): Json {
  return {
    identifier: p.identifier,
    commitment: p.commitment.map(bytesToHex),
    proofOfKnowledge: bytesToHex(p.proofOfKnowledge),
  };
}

function round1FromJson(raw: unknown, t: number): DKG_Round1 {
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
  ) {}

  round1(): unknown {
    const { roster } = this;
    if (!this.state) {
      const r1 = frost.DKG.round1(frostIdentifier(this.id), { min: roster.t, max: roster.n });
      this.state = { secret: r1.secret, round1: [r1.public], received: new Map() };
    }
    return { package: round1ToJson(this.state.round1[0]!) };
  }

  async round2(body: unknown): Promise<unknown> {
    const { roster } = this;
    const dkg = this.state;
    if (!dkg) throw new ProtocolError('not-ready', 'dkg/round1 first');
    const wires = (body as { round1?: unknown })?.round1;
    const others = roster.members.filter((m) => m.id !== this.id);
    if (!Array.isArray(wires) || wires.length !== others.length)
      throw new ProtocolError('malformed', 'dkg/round2 needs the n-1 other round-1 packages');
    // Each package must carry its guardian's own signature: a coordinator cannot invent one.
    const packages = others.map((m, i) => {
      const payload = checkReply(wires[i] as Wire, m.identityKey);
      if (payload.type !== 'dkg/round1')
        throw new ProtocolError('malformed', 'not a round-1 package');
      const pkg = round1FromJson((payload.body as { package?: unknown })?.package, roster.t);
      if (pkg.identifier !== frostIdentifier(m.id))
        throw new ProtocolError(
          'malformed',
          `round-1 package of guardian ${m.id} names another id`,
        );
      return pkg;
    });
    const toSend = frost.DKG.round2(dkg.secret, packages);
    dkg.round1 = [dkg.round1[0]!, ...packages];
    await Promise.all(
      others.map((m) =>
        callParty({
          url: m.url,
          identity: this.identity,
          to: m.identityKey,
          setVersion: roster.version,
          type: 'dkg/share',
          body: {
            box: encryptShare(
              this.identity,
              m.identityKey,
              toSend[frostIdentifier(m.id)]!.signingShare,
            ),
          },
        }),
      ),
    );
    return { sent: others.length };
  }

  receive(peer: Member, body: unknown): unknown {
    if (!this.state) throw new ProtocolError('not-ready', 'dkg/round1 first');
    const share = decryptShare(this.identity, peer.identityKey, (body as { box?: unknown })?.box);
    this.state.received.set(frostIdentifier(peer.id), share);
    return { received: true };
  }

  finish(): unknown {
    const { roster } = this;
    const dkg = this.state;
    if (!dkg || dkg.round1.length !== roster.n || dkg.received.size !== roster.n - 1)
      throw new ProtocolError('not-ready', 'DKG rounds 1 and 2 are not complete');
    if (!dkg.result) {
      const round2 = [...dkg.received].map(([identifier, signingShare]) => ({
        identifier,
        signingShare,
      }));
      dkg.result = frost.DKG.round3(dkg.secret, dkg.round1.slice(1), round2);
    }
    const pub = publicToJson(dkg.result.public);
    return { frost: pub, groupKey: groupKeyXOnly(pub) };
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

  signSet(body: unknown): unknown {
    const set = this.ownSetBody((body as { set?: unknown })?.set);
    return { signature: signSet(set, this.identity.secretKey) };
  }

  /** Forgets the DKG secret polynomial once the share is on disk. */
  clean(): void {
    if (this.state) frost.DKG.clean(this.state.secret);
    this.state = undefined;
  }
}
