// The coordinator's run of a resharing among running guardians: the installed set's group key
// stays, the members change (docs/guardian-network.md, "Changing members with the same group
// key"). It picks t dealers among the members that stay, sends every party the spec, has each
// dealer deal to the next members directly (sealed sub-shares: the coordinator holds no share and
// sees none), has each next member combine and check the same group key, collects the next set's
// signatures from its members (at least t) and the handover from the staying members of the
// installed set (at least t), then installs it. Before the install nothing is written anywhere: a
// run that fails or stops earlier tells every party to drop it, and every member stays on its set.
import { canonicalJson, type Json } from './canonical';
import { groupKeyXOnly, type FrostPublicJson } from './frost';
import {
  handoverDigest,
  parseSetBody,
  setDigest,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import type { Identity } from './identity';
import { describeError as describe, MembershipFailure, PartyRun } from './party-run';

/** A resharing that failed before any member installed the next set; `blamed` dealt badly. */
export { MembershipFailure as ReshareFailure };

export interface ReshareOptions {
  timeoutMs?: number;
  log?: (event: Record<string, unknown>) => void;
  /** a test's stop: the run ends (as a killed coordinator would) right after this step */
  stopAfter?: 'deals' | 'signed';
}

/** The members of `next` that keep their seat of `current` (same id and identity key). */
export function stayingSeats(current: GuardianSet, next: GuardianSetBody): Member[] {
  return current.members.filter(
    (m) => next.members.find((n) => n.id === m.id)?.identityKey === m.identityKey,
  );
}

/** Checks a resharing roster against the installed set before anyone is asked. */
export function checkReshareRoster(current: GuardianSet, raw: unknown): GuardianSetBody {
  const next = parseSetBody(raw);
  if (next.frost || next.groupKey) throw new Error('a resharing roster carries no group key');
  if (next.version !== current.version + 1)
    throw new Error(`the roster must be version ${current.version + 1}, not ${next.version}`);
  if (stayingSeats(current, next).length < current.t)
    throw new Error(
      `a resharing keeps at least ${current.t} members of set ${current.version} in their seats, who deal and hand over`,
    );
  return next;
}

class Run extends PartyRun {
  readonly dealers: Member[];
  readonly staying: Member[];

  constructor(
    current: GuardianSet,
    readonly next: GuardianSetBody,
    identity: Identity,
    readonly o: ReshareOptions,
  ) {
    super('resharing', current, identity, o.timeoutMs ?? 15_000);
    this.staying = stayingSeats(current, next);
    this.dealers = this.staying.slice(0, current.t);
  }

  /** Everyone who takes part: the next members (the staying ones among them) and the dealers. */
  get parties(): Member[] {
    return this.next.members;
  }

  /** The next set's public package every next member computed, or the dealers they name. */
  async combine(): Promise<FrostPublicJson> {
    const finished = await this.every('reshare/finish', this.next.members);
    const blamed = new Set<number>();
    for (const f of finished) {
      const answer = f.payload.body;
      if ('blame' in answer && this.dealers.some((d) => d.id === answer.blame.guardian))
        blamed.add(answer.blame.guardian);
    }
    if (blamed.size > 0)
      throw new MembershipFailure(
        `the resharing failed at reshare/finish: guardian ${[...blamed].join(', ')} dealt a sub-share that fails its own commitments; run it again with other dealers`,
        [...blamed],
      );
    const publics = finished.map((f) => ('public' in f.payload.body ? f.payload.body.public : null)); // prettier-ignore
    const first = canonicalJson(publics[0] ?? null);
    if (!publics[0] || publics.some((p) => canonicalJson(p) !== first))
      throw new MembershipFailure('the next members disagree on the resharing result');
    if (groupKeyXOnly(publics[0]) !== this.current.groupKey)
      throw new MembershipFailure('the resharing result is not the installed group key');
    return publics[0];
  }

  async abort(reason: string): Promise<void> {
    await this.abortAll('reshare/abort', [...this.next.members, ...this.staying], reason);
  }

  /** Up to the set signed and handed over; nothing is written on any member yet. */
  async certify(): Promise<GuardianSet | undefined> {
    const { current, next, o } = this;
    const spec = { current, next, dealers: this.dealers.map((d) => d.id) } as unknown as Json;
    await this.every('reshare/roster', next.members, spec);
    o.log?.({
      event: 'reshare-session',
      session: this.session,
      dealers: this.dealers.map((d) => d.id),
    });
    await this.every('reshare/send', this.dealers);
    if (o.stopAfter === 'deals') return undefined;
    const frost = await this.combine();
    const body: GuardianSetBody = { ...next, frost, groupKey: current.groupKey! };
    const bodyJson = body as unknown as Json;
    const signatures = await this.signatures(
      'reshare/sign',
      next.members,
      bodyJson,
      setDigest(body),
      next.t,
    );
    const signed = verifySet({ ...body, signatures });
    const handover = await this.signatures(
      'reshare/handover',
      this.staying,
      signed as unknown as Json,
      handoverDigest(signed),
      current.t,
    );
    const set = verifySet({ ...signed, handover }, { previous: current });
    return o.stopAfter === 'signed' ? undefined : set;
  }
}

/**
 * Reshares `current` to `roster` (checked by checkReshareRoster) among running guardians: the new
 * set, same group key, signed by t of its members and handed over by t of `current`, installed on
 * every next member. A failure before the install is a ReshareFailure, after every party was told to
 * drop the attempt. Each staying member's operator must have approved `roster` as a `reshare`.
 */
export async function runReshare(
  current: GuardianSet,
  roster: GuardianSetBody,
  coordinator: Identity,
  o: ReshareOptions = {},
): Promise<GuardianSet | undefined> {
  const next = checkReshareRoster(current, roster);
  const run = new Run(current, next, coordinator, o);
  let set: GuardianSet | undefined;
  try {
    set = await run.certify();
  } catch (e) {
    await run.abort(describe(e));
    throw e instanceof MembershipFailure ? e : new MembershipFailure(describe(e));
  }
  if (!set) return undefined;
  // Past this point the set is valid (t signatures and t of the handover): a member that misses
  // the install keeps its result in memory, and the install may be sent again.
  await run.every('reshare/install', run.parties, { set: set as unknown as Json });
  o.log?.({ event: 'reshare-installed', version: set.version, groupKey: set.groupKey });
  return set;
}
