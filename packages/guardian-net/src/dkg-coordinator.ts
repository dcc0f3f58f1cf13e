// The coordinator's side of the distributed key generation: it relays only public packages among
// the roster's guardians (each secret round-2 share travels guardian to guardian, encrypted to the
// receiver), has every guardian sign the resulting set, and installs it on each.
import { canonicalJson, type Json } from './canonical';
import { groupKeyXOnly } from './frost';
import { verifySet, type GuardianSet, type GuardianSetBody, type Member } from './guardian-set';
import type { Identity } from './identity';
import { callParty } from './transport';

/** A rotation's DKG: the set it replaces, and how the handover of that set is collected. */
export interface RotationHooks {
  previous: GuardianSet;
  /** the new set, signed by all its members, with the previous set's handover added */
  handover: (set: GuardianSet) => Promise<GuardianSet>;
}

/**
 * Runs the three DKG rounds among the roster's guardians (each already started in DKG mode), then
 * has every guardian sign the resulting set and installs it on each (in a rotation, once the
 * previous set's handover is added: rotate.ts). Secret round-2 shares travel
 * guardian to guardian, encrypted to the receiver; the coordinator sees only public packages.
 */
export async function runDkg(
  roster: GuardianSetBody,
  identity: Identity,
  timeoutMs = 15_000,
  rotation?: RotationHooks,
): Promise<GuardianSet> {
  const call = (m: Member, type: string, body: unknown) =>
    callParty({
      url: m.url,
      identity,
      to: m.identityKey,
      setVersion: roster.version,
      type,
      body,
      timeoutMs,
    });
  const round1 = await Promise.all(roster.members.map((m) => call(m, 'dkg/round1', {})));
  await Promise.all(
    roster.members.map((m, i) =>
      call(m, 'dkg/round2', { round1: round1.filter((_, j) => j !== i).map((r) => r.wire) }),
    ),
  );
  const finished = await Promise.all(roster.members.map((m) => call(m, 'dkg/finish', {})));
  const first = canonicalJson(finished[0]!.payload.body as Json);
  if (finished.some((f) => canonicalJson(f.payload.body as Json) !== first))
    throw new Error('guardians disagree on the DKG result');
  const result = finished[0]!.payload.body as { frost: GuardianSetBody['frost']; groupKey: string };
  if (groupKeyXOnly(result.frost!) !== result.groupKey)
    throw new Error('DKG result is inconsistent');
  const body: GuardianSetBody = {
    ...roster,
    version: roster.version === 0 ? 1 : roster.version,
    frost: result.frost,
    groupKey: result.groupKey,
  };
  const sigs = await Promise.all(roster.members.map((m) => call(m, 'set/sign', { set: body })));
  const signed = verifySet({
    ...body,
    signatures: Object.fromEntries(
      roster.members.map((m, i) => [
        String(m.id),
        (sigs[i]!.payload.body as { signature: string }).signature,
      ]),
    ),
  });
  const set = rotation ? await rotation.handover(signed) : signed;
  const previous = rotation ? { previous: rotation.previous } : {};
  await Promise.all(roster.members.map((m) => call(m, 'set/install', { set, ...previous })));
  return set;
}
