// A resharing's signed deals beyond the dealer that sent them. Each dealer hands the coordinator
// every `reshare/deal` message it signed (each sub-share sealed to its recipient, so the
// coordinator opens none). With them the coordinator judges a recipient's accusation (the
// recipient reveals that pair's key of this session, as a DKG's evidence does), and a member that
// missed the install rebuilds its own new share from its own deals (`reshare/catch-up`).
import { parseHex } from './canonical';
import { open } from './dkg-share-box';
import { authenticates, ProtocolError, type Payload, type Wire } from './envelope';
import type { FrostSecret } from '@noble/curves/abstract/frost.js';
import { frostIdentifier } from './frost';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody, type Member } from './guardian-set'; // prettier-ignore
import type { Identity } from './identity';
import { sameJson } from './roster-change';
import { ReshareRecipient } from './reshare-rounds';
import { parseMessageBody, type MessageBody } from './messages';
import {
  checkDealerCommitments,
  checkSubShare,
  pointFromBytes,
  scalarFromBytes,
} from './reshare-math';

export interface DealAddress {
  dealer: Member;
  to: Member;
  /** the installed set's version, which every message of the resharing names */
  setVersion: number;
  session: string;
}

const refused = (why: string) => new ProtocolError('refused', why);

/** The body of `wire` when it is `dealer`'s own signed `reshare/deal` of `session` to `to`. */
export function openDeal(wire: unknown, a: DealAddress): MessageBody<'reshare/deal'> {
  const w = (wire ?? {}) as Wire;
  const name = `the deal of guardian ${a.dealer.id} to guardian ${a.to.id}`;
  let payload: Payload;
  try {
    payload = JSON.parse(w.payload) as Payload;
  } catch {
    throw refused(`${name} is not a signed message`);
  }
  if (
    payload?.type !== 'reshare/deal' ||
    payload.from !== a.dealer.identityKey ||
    payload.to !== a.to.identityKey ||
    payload.setVersion !== a.setVersion
  )
    throw refused(`${name} is addressed otherwise`);
  // Signed, never MAC'd: a third party (the coordinator, a later catch-up) checks it.
  if (w.mac !== undefined || !authenticates(w, a.dealer.identityKey, { publicKey: '' }))
    throw refused(`${name} is not signed by its dealer`);
  const body = parseMessageBody('reshare/deal', payload.body);
  if (body.session !== a.session || body.dealer !== a.dealer.id)
    throw refused(`${name} belongs to another resharing`);
  return body;
}

/**
 * The coordinator's verdict on `accuser`'s blame of a dealer, from that dealer's signed deal to it:
 * `proven` when its commitments are not its own weighted share, or its sub-share opens under the
 * revealed key and fails them; otherwise why the accusation does not hold (a box that does not
 * open under the key cannot be told from a wrong key).
 */
export function judgeDeal(
  current: GuardianSet,
  dealers: number[],
  nextT: number,
  accuser: Member,
  deal: MessageBody<'reshare/deal'>,
  revealed: unknown,
): 'proven' | string {
  const d = deal.dealer;
  const dealer = current.members.find((m) => m.id === d)!;
  try {
    const commitments = (deal.commitments as string[]).map((c) => pointFromBytes(parseHex(c, 33)));
    const y = pointFromBytes(parseHex(current.frost!.verifyingShares[frostIdentifier(d)], 33));
    checkDealerCommitments(d, commitments, y, dealers, nextT);
    let key: Uint8Array;
    try {
      key = parseHex(revealed, 32, 'key');
    } catch {
      return 'the revealed key is malformed';
    }
    const plain = open(key, dealer.identityKey, accuser.identityKey, deal.box);
    if (!plain) return 'the sub-share does not open under the revealed key';
    checkSubShare(d, accuser.id, scalarFromBytes(plain), commitments);
    return 'the sub-share holds against its commitments';
  } catch {
    // A BlameError, or commitments that are no curve points: the dealer signed them.
    return 'proven';
  }
}

/**
 * `reshare/catch-up` {session, set, dealers, deals} to a guardian that missed a resharing's
 * install: `dealtFrom` is the set the resharing was dealt from (a staying member's own set; a new
 * member's, the verified `current` the message carries). The set must follow it (t signatures, t
 * of the handover, the same group key) and keep a staying member in its seat, `approved` must
 * accept its roster, and the share is rebuilt from this guardian's own deals, each signed by its
 * dealer and checked as in the run; the set's package must be exactly what they make, so the share
 * is its verifying share there.
 */
export function catchUpShare(
  identity: Identity,
  dealtFrom: GuardianSet,
  raw: MessageBody<'reshare/catch-up'>,
  approved: (roster: GuardianSetBody) => void,
): { set: GuardianSet; id: number; secret: FrostSecret } {
  let set: GuardianSet;
  try {
    set = verifySet(raw.set, { previous: dealtFrom });
  } catch (e) {
    throw refused(`the next set does not verify: ${(e as Error).message}`);
  }
  const me = identity.publicKey;
  const seat = set.members.find((m) => m.identityKey === me);
  const before = dealtFrom.members.find((m) => m.identityKey === me);
  if (!seat) throw refused(`set ${set.version} does not name this guardian`);
  if (before && before.id !== seat.id)
    throw refused(`set ${set.version} does not keep this guardian in its seat`);
  if (set.groupKey !== dealtFrom.groupKey)
    throw refused(`set ${set.version} has another group key`);
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...rest } = set;
  const roster = parseSetBody(rest);
  approved(roster);
  if (raw.deals.length !== raw.dealers.length)
    throw new ProtocolError('malformed', 'a catch-up carries one deal per dealer');
  const spec = { session: raw.session, current: dealtFrom, next: roster, dealers: raw.dealers };
  const recipient = new ReshareRecipient(identity, spec);
  const setVersion = dealtFrom.version;
  raw.dealers.forEach((d, i) => {
    const dealer = dealtFrom.members.find((m) => m.id === d)!;
    const body = openDeal(raw.deals[i], { dealer, to: seat, setVersion, session: raw.session });
    recipient.receive(dealer.identityKey, body);
  });
  const done = recipient.finish();
  if ('blame' in done) throw refused(`the deal of guardian ${done.blame.guardian} fails: ${done.blame.why}`); // prettier-ignore
  if (!sameJson(done.public, set.frost))
    throw refused(`set ${set.version} is not the package its deals make`);
  const signingShare = Uint8Array.from(done.signingShare);
  return { set, id: seat.id, secret: { identifier: frostIdentifier(seat.id), signingShare } };
}
