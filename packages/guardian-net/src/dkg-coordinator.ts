// The coordinator's side of the distributed key generation: it relays only public packages among
// the roster's guardians (each secret round-2 share travels guardian to guardian, encrypted to the
// receiver), has every guardian sign the resulting set, and installs it on each. It holds no share.
// A DKG either ends with the set every member signed (the certificate that they all hold the same
// result) or fails for everyone: on any failure before the install it tells every member to drop
// the attempt (`dkg/abort`) and names who failed, and a guardian whose share failed its own
// commitment is named from the receiver's evidence (dkg-share-box.ts).
import { randomBytes } from 'node:crypto';
import { bytesToHex, canonicalJson } from './canonical';
import { judgeBlame } from './dkg-share-box';
import { round1FromJson } from './dkg-rounds';
import { groupKeyXOnly } from './frost';
import { verifySet, type GuardianSet, type GuardianSetBody, type Member } from './guardian-set';
import type { Identity } from './identity';
import { HEALTH_MAX_BYTES, readPublic } from './public-read';
import { callParty, RemoteError, type CallResult } from './transport';
import { NOT_APPROVED } from './approval';
import { makeTranscript, type DkgTranscript } from './dkg-recovery';
import type { MessageType } from './messages';

/** A rotation's DKG: the set it replaces, and how the handover of that set is collected. */
export interface RotationHooks {
  previous: GuardianSet;
  /** the new set, signed by all its members, with the previous set's handover added */
  handover: (set: GuardianSet) => Promise<GuardianSet>;
}

/** A DKG that failed for every member; `blamed` sent a share that fails its own commitment. */
export class DkgFailure extends Error {
  constructor(
    message: string,
    /** guardians proven to have sent a bad share */
    readonly blamed: number[] = [],
    /** guardians that did not answer a step, or refused it */
    readonly failed: number[] = [],
    /** guardians that refused the roster for want of their operator's approval */
    readonly notApproved: number[] = [],
  ) {
    super(message);
  }
}

export interface FirstDkgOptions {
  timeoutMs?: number;
  /**
   * called with the set every member signed and the DKG's public transcript (dkg-recovery.ts),
   * before the set is installed anywhere
   */
  onCertified?: (set: GuardianSet, transcript: DkgTranscript) => void;
  log?: (event: Record<string, unknown>) => void;
}

function describe(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err?.name === 'TimeoutError') return 'timed out';
  if (err?.cause?.code) return `unreachable (${err.cause.code})`;
  return String(err?.message ?? e).slice(0, 600);
}

/**
 * A network's first DKG among guardians that each run from their own directory and wait for a
 * roster (`guardian init` then `guardian start`): each is sent the roster with a fresh session,
 * accepts it only if it names it with its own identity key, then the rounds run as below.
 */
export async function runFirstDkg(
  roster: GuardianSetBody,
  identity: Identity,
  o: FirstDkgOptions = {},
): Promise<GuardianSet> {
  const session = bytesToHex(randomBytes(16));
  const timeoutMs = o.timeoutMs ?? 15_000;
  const rounds = new DkgRounds(roster, identity, session, timeoutMs);
  o.log?.({ event: 'dkg-session', session, t: roster.t, n: roster.n });
  await rounds.guarded(() => rounds.every('dkg/roster', () => ({ roster, session })));
  return rounds.run(undefined, o.onCertified);
}

/**
 * Runs the three DKG rounds among the roster's guardians (each already started in DKG mode), then
 * has every guardian sign the resulting set and installs it on each (in a rotation, once the
 * previous set's handover is added: rotate.ts).
 */
export async function runDkg(
  roster: GuardianSetBody,
  identity: Identity,
  timeoutMs = 15_000,
  rotation?: RotationHooks,
): Promise<GuardianSet> {
  return new DkgRounds(roster, identity, '', timeoutMs).run(rotation);
}

class DkgRounds {
  /** the public transcript of a certified first DKG */
  transcript?: DkgTranscript;

  constructor(
    private readonly roster: GuardianSetBody,
    private readonly identity: Identity,
    private readonly session: string,
    private readonly timeoutMs: number,
  ) {}

  private call<T extends MessageType>(
    m: Member,
    type: T,
    body: unknown,
    timeoutMs = this.timeoutMs,
  ) {
    const { identity, roster } = this;
    return callParty({ url: m.url, identity, to: m.identityKey, setVersion: roster.version, type, body, timeoutMs }); // prettier-ignore
  }

  /** One step on every member; a failure names every member that failed it. */
  async every<T extends MessageType>(
    type: T,
    body: (m: Member, i: number) => unknown,
    members = this.roster.members,
  ): Promise<CallResult<T>[]> {
    const settled = await Promise.allSettled(members.map((m, i) => this.call(m, type, body(m, i))));
    const failed = settled.flatMap(
      (r, i) =>
      r.status === 'rejected' ? [{ m: members[i]!, why: describe(r.reason), e: r.reason as unknown }] : [], // prettier-ignore
    );
    const refusedRoster = failed.filter(
      (f) => f.e instanceof RemoteError && f.e.message.startsWith(NOT_APPROVED),
    );
    if (failed.length > 0)
      throw new DkgFailure(
        `the DKG failed at ${type}: ` +
          failed.map((f) => `guardian ${f.m.id} (${f.m.name}): ${f.why}`).join('; '),
        [],
        failed.map((f) => f.m.id),
        refusedRoster.map((f) => f.m.id),
      );
    return settled.map((r) => (r as PromiseFulfilledResult<CallResult>).value);
  }

  /** Runs `step`; on failure every member is told to drop this attempt, then the failure is thrown. */
  async guarded<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      const reason = describe(e);
      await Promise.allSettled(
        this.roster.members.map((m) =>
          this.call(m, 'dkg/abort', { session: this.session, reason }, 3_000),
        ),
      );
      throw e instanceof DkgFailure ? e : new DkgFailure(reason);
    }
  }

  /** Rounds 1 to 3 and the members' signatures: the certified set, or a failure for all. */
  private async certify(): Promise<GuardianSet> {
    const { roster } = this;
    const round1 = await this.every('dkg/round1', () => ({}));
    await this.every('dkg/round2', (_, i) => ({
      round1: round1.filter((_, j) => j !== i).map((r) => r.wire),
    }));
    const finished = await this.every('dkg/finish', () => ({}));
    this.judge(finished, round1);
    // Each member's result, without the share messages it received (those differ by member).
    const done = finished.map((f) => {
      const answer = f.payload.body;
      // judge() threw for any blame: each answer here is a result.
      if ('blame' in answer) throw new DkgFailure('a guardian blamed another without proof');
      return answer;
    });
    const results = done.map(({ frost: pub, groupKey }) => ({ frost: pub, groupKey }));
    const first = canonicalJson(results[0]!);
    if (results.some((r) => canonicalJson(r) !== first))
      throw new DkgFailure('the guardians disagree on the DKG result');
    const result = results[0]!;
    const received = done.map((f) => f.received);
    this.transcript = makeTranscript(
      this.session,
      roster,
      round1.map((r) => r.wire),
      received,
    );
    if (groupKeyXOnly(result.frost!) !== result.groupKey)
      throw new DkgFailure('the DKG result is inconsistent');
    const body: GuardianSetBody = {
      ...roster,
      version: roster.version === 0 ? 1 : roster.version,
      frost: result.frost,
      groupKey: result.groupKey,
    };
    const sigs = await this.every('set/sign', () => ({ set: body }));
    const signatures = Object.fromEntries(
      roster.members.map((m, i) => [String(m.id), sigs[i]!.payload.body.signature]),
    );
    return verifySet({ ...body, signatures }, { everyMember: true });
  }

  /** A member whose `dkg/finish` answered with evidence: the sender it proves bad is named. */
  private judge(finished: CallResult<'dkg/finish'>[], round1: CallResult<'dkg/round1'>[]): void {
    const { roster, session } = this;
    const blamed = new Set<number>();
    const unproven: string[] = [];
    finished.forEach((f, i) => {
      const answer = f.payload.body;
      if (!('blame' in answer)) return;
      const raw = answer.blame;
      const accuser = roster.members[i]!;
      const accused = roster.members.find((m) => m.id === raw.guardian && m.id !== accuser.id);
      if (!accused) return unproven.push(`guardian ${accuser.id} blames no valid member`);
      const pkg = round1[accused.id - 1]!.payload.body.package;
      const parties = { session, accuser, accused, round1: round1FromJson(pkg, roster.t) };
      const verdict = judgeBlame(raw, parties);
      if (verdict.verdict === 'accused') blamed.add(accused.id);
      else unproven.push(`guardian ${accuser.id} blames guardian ${accused.id} unproven (${verdict.why})`); // prettier-ignore
    });
    if (blamed.size === 0 && unproven.length === 0) return;
    const named = [...blamed].sort((a, b) => a - b);
    const because = named.map((id) => `blame: ${id} (guardian ${id} sent a share that fails its own round-1 commitment)`); // prettier-ignore
    throw new DkgFailure(
      `the DKG failed at dkg/finish: ${[...because, ...unproven].join('; ')}; run it again without the guardian named`,
      named,
    );
  }

  async run(
    rotation?: RotationHooks,
    onCertified?: (set: GuardianSet, transcript: DkgTranscript) => void,
  ): Promise<GuardianSet> {
    const signed = await this.guarded(() => this.certify());
    const set = rotation ? await rotation.handover(signed) : signed;
    onCertified?.(set, this.transcript!);
    // Past this point every member signed the same set: a member that misses the install keeps its
    // DKG result in memory until told otherwise, and the install may be sent again.
    const previous = rotation ? { previous: rotation.previous } : {};
    await this.every('set/install', () => ({ set, ...previous }));
    return set;
  }
}

/**
 * The install of a set every member already signed, sent again to each member not yet ready with
 * it (a coordinator stopped during the install): a member still holding its DKG result installs
 * it; one that restarted since has lost it and is named.
 */
export async function resumeInstall(
  set: GuardianSet,
  identity: Identity,
  timeoutMs = 15_000,
): Promise<void> {
  const ready = async (m: Member) => {
    const res = await readPublic(m, '/v1/health', { timeoutMs, maxBytes: HEALTH_MAX_BYTES });
    const health = (res.body ?? {}) as { state?: unknown; groupKey?: unknown };
    return health.state === 'ready' && health.groupKey === set.groupKey;
  };
  const rounds = new DkgRounds({ ...set, version: 0 }, identity, '', timeoutMs);
  const missing = [];
  for (const m of set.members) if (!(await ready(m).catch(() => false))) missing.push(m);
  await rounds.every('set/install', () => ({ set }), missing);
}
