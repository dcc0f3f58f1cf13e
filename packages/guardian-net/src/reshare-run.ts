// The coordinator's run of a resharing among running guardians: the installed set's group key
// stays, the members change (docs/guardian-network.md, "Changing members with the same group
// key"). It picks t dealers among the members that stay, sends every party the spec, has each
// dealer deal to the next members directly (sealed sub-shares: the coordinator holds no share and
// sees none), has each next member combine and check the same group key, collects the next set's
// signatures from its members (at least t) and the handover from the staying members of the
// installed set (at least t), then installs it. Before the install nothing is written anywhere: a
// run that fails or stops earlier tells every party to drop it, and every member stays on its set.
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex, canonicalJson, parseHex, type Json } from './canonical';
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
import { callParty, RemoteError, type CallResult } from './transport';

/** A resharing that failed before any member installed the next set; `blamed` dealt badly. */
export class ReshareFailure extends Error {
  constructor(
    message: string,
    readonly blamed: number[] = [],
    /** members that refused a step for want of their operator's approval */
    readonly notApproved: number[] = [],
  ) {
    super(message);
  }
}

export interface ReshareOptions {
  timeoutMs?: number;
  log?: (event: Record<string, unknown>) => void;
  /** a test's stop: the run ends (as a killed coordinator would) right after this step */
  stopAfter?: 'deals' | 'signed';
}

function describe(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err?.name === 'TimeoutError') return 'timed out';
  if (err?.cause?.code) return `unreachable (${err.cause.code})`;
  return String(err?.message ?? e).slice(0, 400);
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

class Run {
  readonly session = bytesToHex(randomBytes(16));
  readonly dealers: Member[];
  readonly staying: Member[];

  constructor(
    readonly current: GuardianSet,
    readonly next: GuardianSetBody,
    readonly identity: Identity,
    readonly o: ReshareOptions,
  ) {
    this.staying = stayingSeats(current, next);
    this.dealers = this.staying.slice(0, current.t);
  }

  /** Everyone who takes part: the next members (the staying ones among them) and the dealers. */
  get parties(): Member[] {
    return this.next.members;
  }

  private call(m: Member, type: string, body: Json, timeoutMs = this.o.timeoutMs ?? 15_000) {
    const { identity, current } = this;
    const fields = { url: m.url, identity, to: m.identityKey, setVersion: current.version };
    return callParty({
      ...fields,
      type,
      body: { session: this.session, ...(body as object) },
      timeoutMs,
    });
  }

  /** One step on `members`: every answer, or a failure naming each member that failed it. */
  async every(type: string, members: Member[], body: Json = {}): Promise<CallResult[]> {
    const settled = await Promise.allSettled(members.map((m) => this.call(m, type, body)));
    const failed = settled.flatMap((r, i) =>
      r.status === 'rejected' ? [{ m: members[i]!, e: r.reason as unknown }] : [],
    );
    if (failed.length === 0)
      return settled.map((r) => (r as PromiseFulfilledResult<CallResult>).value);
    const notApproved = failed.filter(
      (f) => f.e instanceof RemoteError && f.e.message.includes('not approved'),
    );
    throw new ReshareFailure(
      `the resharing failed at ${type}: ${failed.map((f) => `guardian ${f.m.id} (${f.m.name}): ${describe(f.e)}`).join('; ')}`,
      [],
      notApproved.map((f) => f.m.id),
    );
  }

  /** The next set's public package every next member computed, or the dealers they name. */
  async combine(): Promise<FrostPublicJson> {
    const finished = await this.every('reshare/finish', this.next.members);
    const blamed = new Set<number>();
    for (const f of finished) {
      const blame = (f.payload.body as { blame?: { guardian?: unknown } }).blame;
      if (blame && this.dealers.some((d) => d.id === blame.guardian))
        blamed.add(blame.guardian as number);
    }
    if (blamed.size > 0)
      throw new ReshareFailure(
        `the resharing failed at reshare/finish: guardian ${[...blamed].join(', ')} dealt a sub-share that fails its own commitments; run it again with other dealers`,
        [...blamed],
      );
    const publics = finished.map((f) => (f.payload.body as { public?: FrostPublicJson }).public);
    const first = canonicalJson(publics[0] as unknown as Json);
    if (!publics[0] || publics.some((p) => canonicalJson(p as unknown as Json) !== first))
      throw new ReshareFailure('the next members disagree on the resharing result');
    if (groupKeyXOnly(publics[0]) !== this.current.groupKey)
      throw new ReshareFailure('the resharing result is not the installed group key');
    return publics[0];
  }

  /** Signatures from `members` over `digest`, each checked; fewer than `t`: a failure. */
  async signatures(
    type: string,
    members: Member[],
    set: Json,
    digest: Uint8Array,
    t: number,
  ): Promise<Record<string, string>> {
    const settled = await Promise.allSettled(members.map((m) => this.call(m, type, { set })));
    const out: Record<string, string> = {};
    const why: string[] = [];
    settled.forEach((r, i) => {
      const m = members[i]!;
      const sig =
        r.status === 'fulfilled'
          ? (r.value.payload.body as { signature?: unknown }).signature
          : undefined;
      if (r.status === 'rejected') why.push(`guardian ${m.id}: ${describe(r.reason)}`);
      else if (!schnorr.verify(parseHex(sig, 64), digest, parseHex(m.identityKey, 32)))
        why.push(`guardian ${m.id}: a bad signature`);
      else out[String(m.id)] = sig as string;
    });
    if (Object.keys(out).length < t)
      throw new ReshareFailure(`fewer than ${t} guardians answered ${type} (${why.join('; ')})`);
    return out;
  }

  async abort(reason: string): Promise<void> {
    const everyone = [
      ...new Map([...this.next.members, ...this.staying].map((m) => [m.identityKey, m])).values(),
    ];
    await Promise.allSettled(everyone.map((m) => this.call(m, 'reshare/abort', { reason }, 3_000)));
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
    throw e instanceof ReshareFailure ? e : new ReshareFailure(describe(e));
  }
  if (!set) return undefined;
  // Past this point the set is valid (t signatures and t of the handover): a member that misses
  // the install keeps its result in memory, and the install may be sent again.
  await run.every('reshare/install', run.parties, { set: set as unknown as Json });
  o.log?.({ event: 'reshare-installed', version: set.version, groupKey: set.groupKey });
  return set;
}
