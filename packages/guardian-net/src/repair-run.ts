// The coordinator's run of a repair among running guardians (docs/guardian-network.md, "Repair
// among processes"): t helpers rebuild the share of the guardian at seat `lost`, which lost its
// disk. Each helper sends masked pieces to the other helpers and one sealed sum to the lost
// guardian, all directly: the coordinator relays nothing secret and sees no share. The next set is
// the installed set's next version with the same FROST package (the same group key), signed by t of
// its members and handed over by t staying members, then installed on every member. Before the
// install nothing is written anywhere: a run that fails or stops earlier tells every party to drop
// it, and every member stays on its set. Unless the operator names them, the helpers are t members
// that answer: each member's health is read first, and a helper that then does not answer a step
// in time is left out and the repair runs again, in a new session, with another responsive one.
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
import { describeError, MembershipFailure, PartyRun, responsiveMembers } from './party-run';
import { repairRosterProblem } from './repair-roster';

export interface RepairOptions {
  timeoutMs?: number;
  /** ids of the helpers, every member asked to take part; t responsive members when absent */
  helpers?: number[];
  /** how long a member's health has to answer for it to count as responsive (3 s) */
  probeMs?: number;
  log?: (event: Record<string, unknown>) => void;
  /** a test's stop: the run ends (as a killed coordinator would) right after this step */
  stopAfter?: 'pieces' | 'signed';
  /** a test's hook: called with each session's helpers before its first message */
  onSession?: (helpers: number[]) => Promise<void> | void;
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
    /** the helpers' ids */
    ids: number[],
    /** the members asked to take part: the lost one and the staying ones that answer */
    readonly parties: Member[],
  ) {
    super('repair', current, identity, o.timeoutMs ?? 15_000);
    this.helpers = next.members.filter((m) => ids.includes(m.id));
    this.staying = parties.filter((m) => m.id !== lost);
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
    await this.every('repair/roster', this.parties, spec);
    o.log?.({ event: 'repair-session', session: this.session, helpers, lost: this.lost.id });
    await this.every('repair/send', this.helpers);
    if (o.stopAfter === 'pieces') return undefined;
    await this.every('repair/forward', this.helpers);
    await this.rebuild();
    const body: GuardianSetBody = { ...next, frost: current.frost!, groupKey: current.groupKey! };
    const bodyJson = body as unknown as Json;
    const signatures = await this.signatures('repair/sign', this.parties, bodyJson, setDigest(body), next.t); // prettier-ignore
    const signed = verifySet({ ...body, signatures });
    const handover = await this.signatures('repair/handover', this.staying, signed as unknown as Json, handoverDigest(signed), current.t); // prettier-ignore
    const set = verifySet({ ...signed, handover }, { previous: current });
    return o.stopAfter === 'signed' ? undefined : set;
  }
}

/**
 * The install sent to members that took no part (each keeps its share: a repair changes no other);
 * the ids of those it did not reach, named for a later `guardian repair --install <id>`.
 */
async function installMissed(run: Run, members: Member[], set: GuardianSet): Promise<number[]> {
  const sent = await Promise.allSettled(
    members.map((m) => run.call(m, 'repair/install', { set: set as unknown as Json }, 5_000)),
  );
  return members.filter((_, i) => sent[i]!.status === 'rejected').map((m) => m.id);
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
  let candidates = o.helpers ? repairHelpers(current, lost, o.helpers) : [];
  if (!o.helpers) {
    const probe = await responsiveMembers(current, lost, o.probeMs ?? 3_000);
    candidates = probe.responsive;
    o.log?.({ event: 'repair-responsive', members: candidates, silent: probe.silent });
  }
  for (let attempt = 1; ; attempt++) {
    if (candidates.length < current.t)
      throw new MembershipFailure(
        `the repair needs ${current.t} helpers that answer, and only ${candidates.length} of set ${current.version}'s other members did (${candidates.map((id) => `guardian ${id}`).join(', ') || 'none'}); start the others and run it again`,
      );
    const helpers = candidates.slice(0, current.t);
    const parties = roster.members.filter((m) => m.id === lost || (o.helpers ? true : candidates.includes(m.id))); // prettier-ignore
    const run = new Run(current, roster, lost, coordinator, o, helpers, parties);
    await o.onSession?.(helpers);
    let set: GuardianSet | undefined;
    try {
      set = await run.certify();
    } catch (e) {
      await run.abortAll('repair/abort', parties, describeError(e));
      const failure = e instanceof MembershipFailure ? e : new MembershipFailure(describeError(e));
      const silent = failure.silent.filter((id) => id !== lost);
      // Only a member that did not answer is replaced; a refusal or a proven bad sum stops the run.
      if (o.helpers || silent.length === 0 || failure.blamed.length > 0 || failure.notApproved.length > 0) throw failure; // prettier-ignore
      candidates = candidates.filter((id) => !silent.includes(id));
      o.log?.({ event: 'repair-retry', attempt, leftOut: silent, reason: failure.message });
      continue;
    }
    if (!set) return undefined;
    // Past this point the set is valid: a member that misses the install keeps its part in
    // memory, and the install may be sent again.
    await run.every('repair/install', parties, { set: set as unknown as Json });
    const missed = await installMissed(run, roster.members.filter((m) => !parties.includes(m)), set); // prettier-ignore
    o.log?.({ event: 'repair-installed', version: set.version, groupKey: set.groupKey, helpers, missed }); // prettier-ignore
    return set;
  }
}
