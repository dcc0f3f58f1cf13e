// The coordinator's run of a repair among running guardians (docs/guardian-network.md, "Repair
// among processes"): t helpers rebuild the share of the guardian at seat `lost`, which lost its
// disk. Each helper sends masked pieces to the other helpers and one sealed sum to the lost
// guardian, all directly: the coordinator relays nothing secret and sees no share. The next set is
// the installed set's next version with the same FROST package (the same group key), signed by t of
// its members and handed over by t staying members, then installed on every member. Before the
// install nothing is written anywhere: a run that fails or stops earlier tells every party to drop
// it, and every member stays on its set.
import type { Json } from './canonical';
import {
  handoverDigest,
  setDigest,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import type { Identity } from './identity';
import { describeError, MembershipFailure, PartyRun } from './party-run';
import { repairRosterProblem } from './repair-roster';

export interface RepairOptions {
  timeoutMs?: number;
  /** ids of the helpers; the first t members other than the lost one when absent */
  helpers?: number[];
  log?: (event: Record<string, unknown>) => void;
  /** a test's stop: the run ends (as a killed coordinator would) right after this step */
  stopAfter?: 'pieces' | 'signed';
}

/** The helpers: those given (t distinct members, not the lost one), else the first t others. */
export function repairHelpers(current: GuardianSet, lost: number, given?: number[]): number[] {
  const others = current.members.filter((m) => m.id !== lost).map((m) => m.id);
  const helpers = given ?? others.slice(0, current.t);
  if (new Set(helpers).size !== helpers.length || helpers.length < current.t)
    throw new Error(`a repair needs ${current.t} distinct helpers`);
  for (const h of helpers)
    if (!others.includes(h))
      throw new Error(`helper ${h} is not a member of set ${current.version} other than guardian ${lost}`); // prettier-ignore
  return helpers;
}

class Run extends PartyRun {
  readonly helpers: Member[];
  /** the members of the installed set that keep their seat: every one but the lost */
  readonly staying: Member[];
  readonly lost: Member;

  constructor(
    current: GuardianSet,
    readonly next: GuardianSetBody,
    lost: number,
    identity: Identity,
    readonly o: RepairOptions,
  ) {
    super('repair', current, identity, o.timeoutMs ?? 15_000);
    const ids = repairHelpers(current, lost, o.helpers);
    this.helpers = next.members.filter((m) => ids.includes(m.id));
    this.staying = next.members.filter((m) => m.id !== lost);
    this.lost = next.members.find((m) => m.id === lost)!;
  }

  /** The lost guardian's share rebuilt, or the helper it names. */
  async rebuild(): Promise<void> {
    const [done] = await this.every('repair/finish', [this.lost]);
    const answer = done!.payload.body;
    if (!('blame' in answer)) return;
    const { blame } = answer;
    const culprit = this.helpers.find((h) => h.id === blame.guardian);
    throw new MembershipFailure(
      `the repair failed at repair/finish: ${culprit ? `guardian ${culprit.id} (${culprit.name}): ${String(blame.why).slice(0, 200)}` : 'the repaired guardian blames no helper'}; run it again with other helpers (--helpers)`,
      culprit ? [culprit.id] : [],
    );
  }

  /** Up to the set signed and handed over; nothing is written on any member yet. */
  async certify(): Promise<GuardianSet | undefined> {
    const { current, next, o } = this;
    const helpers = this.helpers.map((h) => h.id);
    const spec = { current, next, helpers, lost: this.lost.id } as unknown as Json;
    await this.every('repair/roster', next.members, spec);
    o.log?.({ event: 'repair-session', session: this.session, helpers, lost: this.lost.id });
    await this.every('repair/send', this.helpers);
    if (o.stopAfter === 'pieces') return undefined;
    await this.every('repair/forward', this.helpers);
    await this.rebuild();
    const body: GuardianSetBody = { ...next, frost: current.frost!, groupKey: current.groupKey! };
    const bodyJson = body as unknown as Json;
    const signatures = await this.signatures('repair/sign', next.members, bodyJson, setDigest(body), next.t); // prettier-ignore
    const signed = verifySet({ ...body, signatures });
    const handover = await this.signatures('repair/handover', this.staying, signed as unknown as Json, handoverDigest(signed), current.t); // prettier-ignore
    const set = verifySet({ ...signed, handover }, { previous: current });
    return o.stopAfter === 'signed' ? undefined : set;
  }
}

/**
 * Repairs seat `lost` of `current` among running guardians, to `roster` (its repair roster:
 * repair-roster.ts). Each staying member's operator must have approved `roster` as a `repair`.
 * A failure before the install is a MembershipFailure, after every party was told to drop it.
 */
export async function runRepair(
  current: GuardianSet,
  roster: GuardianSetBody,
  lost: number,
  coordinator: Identity,
  o: RepairOptions = {},
): Promise<GuardianSet | undefined> {
  const problem = repairRosterProblem(current, roster, lost);
  if (problem) throw new Error(`This is no repair roster: ${problem}.`);
  const run = new Run(current, roster, lost, coordinator, o);
  let set: GuardianSet | undefined;
  try {
    set = await run.certify();
  } catch (e) {
    await run.abortAll('repair/abort', roster.members, describeError(e));
    throw e instanceof MembershipFailure ? e : new MembershipFailure(describeError(e));
  }
  if (!set) return undefined;
  // Past this point the set is valid: a member that misses the install keeps its part in memory,
  // and the install may be sent again.
  await run.every('repair/install', roster.members, { set: set as unknown as Json });
  o.log?.({ event: 'repair-installed', version: set.version, groupKey: set.groupKey });
  return set;
}
