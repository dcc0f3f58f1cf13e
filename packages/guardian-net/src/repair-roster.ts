// The roster of a repair: the installed set's next version with the same threshold, members and
// coordinators, except the seat being repaired, which may take a new identity key, name and URL (a
// guardian that lost its identity key too, set up again by `guardian init`). The group key and
// every verification share stay: the repaired member gets the same share back, so the next set
// carries the installed set's FROST package unchanged.
import { readFileSync } from 'node:fs';
import { canonicalJson, type Json } from './canonical';
import { parsePublicPart } from './guardian-init';
import { parseSetBody, previousOf, type GuardianSet, type GuardianSetBody } from './guardian-set';

const json = (v: unknown) => canonicalJson(JSON.parse(JSON.stringify(v ?? null)) as Json);

/** Why `next` is no repair roster of seat `lost` of `current` (null: it is). */
export function repairRosterProblem(
  current: GuardianSet,
  next: GuardianSetBody,
  lost: number,
): string | null {
  if (!current.members.some((m) => m.id === lost))
    return `guardian ${lost} is no member of set ${current.version}`;
  if (next.frost || next.groupKey) return 'a repair roster carries no key of its own';
  if (next.version !== current.version + 1)
    return `a repair roster is version ${current.version + 1}, not ${next.version}`;
  if (json(next.previous) !== json(previousOf(current)))
    return `the roster was not made from set ${current.version}`;
  if (next.t !== current.t || next.n !== current.n)
    return 'a repair keeps the threshold and the number of members';
  if (json(next.coordinators) !== json(current.coordinators))
    return 'a repair keeps the coordinators';
  for (const m of current.members) {
    const n = next.members.find((x) => x.id === m.id);
    if (!n) return `the roster has no guardian ${m.id}`;
    if (m.id !== lost && json(n) !== json(m))
      return `a repair of guardian ${lost} changes guardian ${m.id}`;
  }
  const repaired = next.members.find((m) => m.id === lost)!;
  if (next.members.some((m) => m.id !== lost && m.identityKey === repaired.identityKey))
    return 'the repaired seat takes the identity key of another member';
  return null;
}

/**
 * The repair roster of seat `lost`: the same members, or with `partFile` (a `guardian init` public
 * part) that seat's new identity key, name and URL.
 */
export function repairRoster(
  current: GuardianSet,
  lost: number,
  partFile?: string,
): GuardianSetBody {
  if (!current.members.some((m) => m.id === lost))
    throw new Error(
      `--member takes an id of set ${current.version} (1..${current.n}), not ${lost}.`,
    );
  const part = partFile
    ? parsePublicPart(JSON.parse(readFileSync(partFile, 'utf8')), partFile)
    : undefined;
  const { frost: _f, groupKey: _g, signatures: _s, handover: _h, ...body } = current;
  return parseSetBody({
    ...body,
    version: current.version + 1,
    members: current.members.map((m) => (m.id === lost && part ? { id: lost, ...part } : m)),
    previous: previousOf(current),
  });
}
