// A guardian's DKG output rebuilt from its own backup plus public data, as ChillDKG recovers a
// participant's output from its host secret key and the recovery data. In a first DKG (one run by
// a coordinator's session) a guardian draws its secret polynomial and its proof of knowledge from
// a stream keyed by its identity secret key, the session and the roster: the same three give the
// same polynomial again, and nothing else does. The coordinator keeps the DKG's public transcript
// (`dkg-transcript.json`): the session, the roster, every member's signed round-1 package, and
// every signed round-2 share message, each share sealed to its recipient (dkg-share-box.ts). With
// its identity key a guardian redraws its polynomial, opens the shares sealed to it, runs the DKG's
// last round again, and keeps the result only when it is its verifying share in the certified set.
import type { DKG_Round1, FrostSecret } from '@noble/curves/abstract/frost.js';
import { bytesToHex, canonicalJson } from './canonical';
import { seededRound1 } from './dkg-seed';
import { round1FromJson } from './dkg-rounds';
import { checkSession, open, shareHolds, shareKey } from './dkg-share-box';
import type { Wire } from './envelope';
import { frost, frostIdentifier, publicFromJson } from './frost';
import {
  parseSetBody,
  setBodyJson,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from './guardian-set';
import type { Identity } from './identity';
import { checkReply } from './transport';
import { parseMessageAnswer, parseMessageBody } from './messages';

export const TRANSCRIPT_KIND = 'unit/dkg-transcript';

/** The public record of a first DKG: enough for each member to rebuild its share, no secret. */
export interface DkgTranscript {
  kind: typeof TRANSCRIPT_KIND;
  session: string;
  /** the roster the DKG ran on (version 0) */
  roster: GuardianSetBody;
  /** each member's signed `dkg/round1` answer, in roster order */
  round1: Wire[];
  /** by recipient id: each other member's signed `dkg/share` message to it, as it received them */
  shares: Record<string, Wire[]>;
}

/** Everything the coordinator saw of a first DKG, as the public transcript. */
export function makeTranscript(
  session: string,
  roster: GuardianSetBody,
  round1: Wire[],
  received: Wire[][],
): DkgTranscript {
  const shares = Object.fromEntries(
    roster.members.map((m, i) => [String(m.id), received[i] ?? []]),
  );
  return { kind: TRANSCRIPT_KIND, session, roster, round1, shares };
}

function fail(message: string): never {
  throw new Error(`The share cannot be recovered: ${message}.`);
}

function parseTranscript(raw: unknown): DkgTranscript {
  const t = (raw ?? {}) as Partial<DkgTranscript>;
  if (t.kind !== TRANSCRIPT_KIND) fail('the file is not a DKG transcript');
  checkSession(t.session);
  const roster = parseSetBody(t.roster);
  if (
    !Array.isArray(t.round1) ||
    t.round1.length !== roster.n ||
    typeof t.shares !== 'object' ||
    !t.shares
  )
    // prettier-ignore
    fail('the transcript lacks a round-1 package per member or the shares');
  return { ...(t as DkgTranscript), roster };
}

/** Each other member's round-1 package, from its own signed answer. */
function othersRound1(t: DkgTranscript, id: number): DKG_Round1[] {
  return t.roster.members.flatMap((m, i) => {
    const payload = checkReply(t.round1[i]!, m.identityKey);
    if (payload.type !== 'dkg/round1') fail(`the round-1 package of guardian ${m.id} is not one`);
    const pkg = round1FromJson(parseMessageAnswer('dkg/round1', payload.body).package, t.roster.t);
    if (pkg.identifier !== frostIdentifier(m.id)) fail(`the package of guardian ${m.id} names another id`); // prettier-ignore
    return m.id === id ? [] : [pkg];
  });
}

/** The shares sealed to `me`, each from its sender's own signed message, opened and checked. */
function sharesTo(t: DkgTranscript, identity: Identity, id: number, r1: DKG_Round1[]) {
  const wires = t.shares[String(id)] ?? [];
  return t.roster.members
    .filter((m) => m.id !== id)
    .map((m) => {
      const wire = wires.find((w) => {
        try {
          return checkReply(w, m.identityKey).to === identity.publicKey;
        } catch {
          return false;
        }
      });
      if (!wire) fail(`the transcript holds no share that guardian ${m.id} signed for this guardian`); // prettier-ignore
      const payload = checkReply(wire, m.identityKey);
      if (payload.type !== 'dkg/share')
        fail(`the share of guardian ${m.id} is from another session`);
      const body = parseMessageBody('dkg/share', payload.body);
      if (body.session !== t.session) fail(`the share of guardian ${m.id} is from another session`);
      const key = shareKey(identity, m.identityKey, t.session);
      const plain = open(key, m.identityKey, identity.publicKey, body.box);
      const commitment = r1.find((p) => p.identifier === frostIdentifier(m.id))!.commitment;
      if (!plain || !shareHolds(id, commitment, plain))
        fail(`the share of guardian ${m.id} does not open under this identity key, or fails its commitment`); // prettier-ignore
      return { identifier: frostIdentifier(m.id), signingShare: plain };
    });
}

/**
 * The share of the guardian whose identity is `identity` in the set a first DKG certified, from
 * that DKG's transcript: refused unless the identity is a member, its redrawn round-1 package is
 * the one it sent, and the result is its verifying share in the set.
 */
export function recoverShare(
  identity: Identity,
  rawTranscript: unknown,
  rawSet: unknown,
): { set: GuardianSet; id: number; secret: FrostSecret } {
  const t = parseTranscript(rawTranscript);
  const set = verifySet(rawSet, { everyMember: true });
  const { frost: _f, groupKey: _g, ...roster } = parseSetBody(set);
  if (
    canonicalJson(setBodyJson({ ...roster, version: 0 })) !== canonicalJson(setBodyJson(t.roster))
  )
    fail('the set is not the result of this transcript’s roster');
  const me = set.members.find((m) => m.identityKey === identity.publicKey);
  if (!me) fail('this identity key is no member of the set');
  const mine = seededRound1(identity, me.id, t.session, t.roster);
  const sent = parseMessageAnswer('dkg/round1', checkReply(t.round1[me.id - 1]!, me.identityKey).body).package; // prettier-ignore
  const redrawn = { identifier: mine.public.identifier, commitment: mine.public.commitment.map(bytesToHex), proofOfKnowledge: bytesToHex(mine.public.proofOfKnowledge) }; // prettier-ignore
  if (canonicalJson(sent ?? null) !== canonicalJson(redrawn))
    fail('this identity key did not draw the round-1 package it sent in this DKG (another session, or a DKG that did not draw from the identity key)'); // prettier-ignore
  const r1 = othersRound1(t, me.id);
  frost.DKG.round2(mine.secret, r1);
  const result = frost.DKG.round3(mine.secret, r1, sharesTo(t, identity, me.id, r1));
  frost.DKG.clean(mine.secret);
  try {
    frost.validateSecret(result.secret, publicFromJson(set.frost!, set.t, set.n));
  } catch {
    fail(`the rebuilt share is not guardian ${me.id}'s verifying share in the set`);
  }
  return { set, id: me.id, secret: result.secret };
}
