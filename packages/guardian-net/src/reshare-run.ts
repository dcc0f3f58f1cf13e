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
import type { Wire } from './envelope';
import {
  describeError as describe,
  MembershipFailure,
  PartyRun,
  responsiveMembers,
} from './party-run';
import { HEALTH_MAX_BYTES, readPublic } from './public-read';
import { judgeDeal, openDeal } from './reshare-deals';
import type { CallResult } from './transport';

/** A resharing that failed before any member installed the next set; `blamed` dealt badly. */
export { MembershipFailure as ReshareFailure };

export interface ReshareOptions {
  timeoutMs?: number;
  /** how long a member's health has to answer for it to count as responsive (3 s) */
  probeMs?: number;
  log?: (event: Record<string, unknown>) => void;
  /** a test's stop: the run ends (as a killed coordinator would) right after this step */
  stopAfter?: 'deals' | 'signed';
  /** a test's hook: called with each session's dealers before its first message */
  onSession?: (dealers: number[]) => Promise<void> | void;
  /** the certified set and every member's signed deals, before any install (for `--install`) */
  onCertified?: (set: GuardianSet, deals: ReshareDeals) => void;
}

/** What a member that missed the install needs: its dealers' signed deals, by its id. */
export interface ReshareDeals {
  kind: 'unit/reshare-deals';
  version: number;
  session: string;
  dealers: number[];
  /** by next member id: each dealer's signed `reshare/deal` to it, in `dealers`' order */
  deals: Record<string, Wire[]>;
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
  /** by next member id, each dealer's signed deal to it (from the dealers' own answers) */
  readonly deals = new Map<number, Wire[]>();

  constructor(
    current: GuardianSet,
    readonly next: GuardianSetBody,
    identity: Identity,
    readonly o: ReshareOptions,
    dealerIds: number[],
    /** the next members taking part: every new one, and the staying ones that answer */
    readonly parties: Member[],
  ) {
    super('resharing', current, identity, o.timeoutMs ?? 15_000);
    this.staying = stayingSeats(current, next).filter((m) => parties.some((p) => p.id === m.id));
    this.dealers = current.members.filter((m) => dealerIds.includes(m.id));
  }

  get absent(): number[] {
    return this.next.members.filter((m) => !this.parties.includes(m)).map((m) => m.id);
  }

  /** Each dealer deals; its answer's signed deals are kept, and a member none could reach named. */
  async deal(): Promise<void> {
    const answers = await this.every('reshare/send', this.dealers);
    const bad = new Set<number>();
    const unreached = new Set<number>();
    for (const m of this.next.members) this.deals.set(m.id, []);
    answers.forEach((a, i) => {
      const dealer = this.dealers[i]!;
      a.payload.body.unreached.forEach((id) => unreached.add(id));
      let commitments: string | undefined;
      for (const to of this.next.members) {
        const wire = a.payload.body.deals[String(to.id)];
        try {
          const address = { dealer, to, setVersion: this.current.version, session: this.session };
          const c = canonicalJson(openDeal(wire, address).commitments);
          commitments ??= c;
          // The same commitments to every member, or it equivocated under its own signature.
          if (c !== commitments) throw new Error('two commitments');
          this.deals.get(to.id)!.push(wire!);
        } catch {
          bad.add(dealer.id);
        }
      }
    });
    if (bad.size > 0)
      throw new MembershipFailure(`the resharing failed at reshare/send: guardian ${[...bad].join(', ')} answered deals that are not its own consistent signed deals`, [...bad]); // prettier-ignore
    const silent = [...unreached].filter((id) => this.parties.some((p) => p.id === id));
    if (silent.length > 0)
      throw new MembershipFailure(`the resharing failed at reshare/deal: no dealer reached guardian ${silent.join(', ')}`, [], [], silent); // prettier-ignore
  }

  /** The accusations at reshare/finish judged: a dealer proven bad, or an accuser that lied. */
  judge(finished: CallResult<'reshare/finish'>[]): void {
    const blamed = new Set<number>();
    const unproven: string[] = [];
    const liars = new Set<number>();
    finished.forEach((f, i) => {
      const answer = f.payload.body;
      if (!('blame' in answer)) return;
      const accuser = this.parties[i]!;
      const d = this.dealers.findIndex((x) => x.id === answer.blame.guardian);
      const wire = d < 0 ? undefined : this.deals.get(accuser.id)?.[d];
      const fields = { dealer: this.dealers[d]!, to: accuser, setVersion: this.current.version, session: this.session }; // prettier-ignore
      const ids = this.dealers.map((x) => x.id);
      const verdict = wire ? judgeDeal(this.current, ids, this.next.t, accuser, openDeal(wire, fields), answer.blame.key) : 'it names no dealer'; // prettier-ignore
      if (verdict === 'proven') return blamed.add(answer.blame.guardian);
      liars.add(accuser.id);
      unproven.push(`guardian ${accuser.id}'s blame of guardian ${answer.blame.guardian} does not hold (${verdict})`); // prettier-ignore
    });
    if (blamed.size === 0 && unproven.length === 0) return;
    const named = [...blamed].map((id) => `guardian ${id} dealt a sub-share that fails its own commitments`); // prettier-ignore
    throw new MembershipFailure(
      `the resharing failed at reshare/finish: ${[...named, ...unproven].join('; ')}`,
      [...blamed],
      [],
      [],
      [...liars],
    );
  }

  /** The next set's public package every next member computed, or the dealers they name. */
  async combine(): Promise<FrostPublicJson> {
    const finished = await this.every('reshare/finish', this.parties);
    this.judge(finished);
    const publics = finished.map((f) => ('public' in f.payload.body ? f.payload.body.public : null)); // prettier-ignore
    const first = canonicalJson(publics[0] ?? null);
    if (!publics[0] || publics.some((p) => canonicalJson(p) !== first))
      throw new MembershipFailure('the next members disagree on the resharing result');
    if (groupKeyXOnly(publics[0]) !== this.current.groupKey)
      throw new MembershipFailure('the resharing result is not the installed group key');
    return publics[0];
  }

  async abort(reason: string): Promise<void> {
    await this.abortAll('reshare/abort', [...this.parties, ...this.staying], reason);
  }

  /** Up to the set signed and handed over; nothing is written on any member yet. */
  async certify(): Promise<GuardianSet | undefined> {
    const { current, next, o } = this;
    const dealers = this.dealers.map((d) => d.id);
    const spec = { current, next, dealers, absent: this.absent } as unknown as Json;
    await this.every('reshare/roster', this.parties, spec);
    o.log?.({ event: 'reshare-session', session: this.session, dealers, absent: this.absent });
    await this.deal();
    if (o.stopAfter === 'deals') return undefined;
    const frost = await this.combine();
    const body: GuardianSetBody = { ...next, frost, groupKey: current.groupKey! };
    const bodyJson = body as unknown as Json;
    const signatures = await this.signatures('reshare/sign', this.parties, bodyJson, setDigest(body), next.t); // prettier-ignore
    const signed = verifySet({ ...body, signatures });
    const handover = await this.signatures('reshare/handover', this.staying, signed as unknown as Json, handoverDigest(signed), current.t); // prettier-ignore
    const set = verifySet({ ...signed, handover }, { previous: current });
    return o.stopAfter === 'signed' ? undefined : set;
  }

  record(): ReshareDeals {
    const deals = Object.fromEntries([...this.deals].map(([id, w]) => [String(id), w]));
    const dealers = this.dealers.map((d) => d.id);
    return { kind: 'unit/reshare-deals', version: this.next.version, session: this.session, dealers, deals }; // prettier-ignore
  }
}

/** The next members that take part: those among `candidates` (staying and new ones that answer). */
function partiesOf(next: GuardianSetBody, candidates: number[]): Member[] {
  return next.members.filter((m) => candidates.includes(m.id));
}

/**
 * The new members of `next` (no seat of `current`) that answer their health in `probeMs` with
 * their own identity key; the others, each with why. A new member that is down is left out of the
 * run and takes its share later from its deals (`reshare/catch-up`).
 */
async function responsiveNew(current: GuardianSet, next: GuardianSetBody, probeMs: number) {
  const staying = stayingSeats(current, next).map((m) => m.id);
  const fresh = next.members.filter((m) => !staying.includes(m.id));
  const answers = await Promise.allSettled(
    fresh.map((m) => readPublic(m, '/v1/health', { timeoutMs: probeMs, maxBytes: HEALTH_MAX_BYTES })), // prettier-ignore
  );
  const responsive: number[] = [];
  const silent: string[] = [];
  answers.forEach((a, i) => {
    const m = fresh[i]!;
    if (a.status === 'rejected') return silent.push(`guardian ${m.id}: ${describe(a.reason)}`);
    const h = (a.value.body ?? {}) as { identityKey?: unknown };
    if (h.identityKey === m.identityKey) responsive.push(m.id);
    else silent.push(`guardian ${m.id}: answers with another identity key`);
  });
  return { responsive, silent };
}

/** The install on every party; the staying members it did not reach, or that took no part. */
async function install(run: Run, set: GuardianSet): Promise<number[]> {
  const sent = await Promise.allSettled(
    run.parties.map((m) => run.call(m, 'reshare/install', { set: set as unknown as Json })),
  );
  const failed = run.parties.filter((_, i) => sent[i]!.status === 'rejected').map((m) => m.id);
  return [...run.absent, ...failed].sort((a, b) => a - b);
}

/**
 * Reshares `current` to `roster` (checked by checkReshareRoster) among running guardians: the new
 * set, same group key, signed by t of its members and handed over by t of `current`, installed on
 * every member taking part. The dealers are t staying members that answer: each staying member's
 * health is read first, one that then does not answer a step in time is left out, and a dealer
 * proven to deal badly is named and left out; each such case runs again in a new session, until
 * fewer than t staying members are left. A new member whose health does not answer, or that then
 * does not answer a step in time, is left out the same way. A member left out gets its share later
 * from its signed deals (`onCertified`, `reshare/catch-up`). A failure before the install is a
 * ReshareFailure, after every party was told to drop the attempt. Each member's operator must have
 * approved `roster` as a `reshare` (a `refresh` when it keeps every seat), a new member's too.
 */
export async function runReshare(
  current: GuardianSet,
  roster: GuardianSetBody,
  coordinator: Identity,
  o: ReshareOptions = {},
): Promise<GuardianSet | undefined> {
  const next = checkReshareRoster(current, roster);
  const staying = stayingSeats(current, next);
  const probeMs = o.probeMs ?? 3_000;
  const [probe, fresh] = await Promise.all([responsiveMembers(current, undefined, probeMs), responsiveNew(current, next, probeMs)]); // prettier-ignore
  let candidates = probe.responsive.filter((id) => staying.some((m) => m.id === id));
  let newcomers = fresh.responsive;
  const notDealing = new Set<number>();
  o.log?.({ event: 'reshare-responsive', members: candidates, silent: probe.silent });
  if (fresh.responsive.length + fresh.silent.length > 0)
    o.log?.({ event: 'reshare-new-members', members: fresh.responsive, silent: fresh.silent });
  for (let attempt = 1; ; attempt++) {
    const dealers = candidates.filter((id) => !notDealing.has(id)).slice(0, current.t);
    if (dealers.length < current.t)
      throw new MembershipFailure(
        `the resharing needs ${current.t} staying members that answer and deal honestly, and only ${dealers.length} of set ${current.version} are left (${dealers.map((id) => `guardian ${id}`).join(', ') || 'none'}); start the others and run it again`,
      );
    const run = new Run(current, next, coordinator, o, dealers, partiesOf(next, [...candidates, ...newcomers])); // prettier-ignore
    await o.onSession?.(dealers);
    let set: GuardianSet | undefined;
    try {
      set = await run.certify();
    } catch (e) {
      await run.abort(describe(e));
      const failure = e instanceof MembershipFailure ? e : new MembershipFailure(describe(e));
      const leftOut = [...failure.silent, ...failure.accusers];
      // A member that did not answer (or a staying one that lied) is left out, a dealer proven bad
      // deals no more; a refusal, a missing approval or a new member's lie stops the run.
      const silentNew = failure.silent.filter((id) => newcomers.includes(id));
      const retry = failure.blamed.length > 0 || (leftOut.length > 0 && leftOut.every((id) => candidates.includes(id) || silentNew.includes(id))); // prettier-ignore
      if (!retry || failure.notApproved.length > 0) throw failure;
      failure.blamed.forEach((id) => notDealing.add(id));
      candidates = candidates.filter((id) => !leftOut.includes(id));
      newcomers = newcomers.filter((id) => !silentNew.includes(id));
      o.log?.({ event: 'reshare-retry', attempt, leftOut, blamed: failure.blamed, reason: failure.message }); // prettier-ignore
      continue;
    }
    if (!set) return undefined;
    o.onCertified?.(set, run.record());
    // Past this point the set is valid (t signatures and t of the handover): a member that misses
    // the install may be sent it again, with its deals (`reshare --install`).
    const missed = await install(run, set);
    o.log?.({ event: 'reshare-installed', version: set.version, groupKey: set.groupKey, dealers, missed }); // prettier-ignore
    return set;
  }
}
