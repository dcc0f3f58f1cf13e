// What a coordinator's run of a membership change with the same group key (a resharing, a repair)
// does on every step: one session, one signed call per party naming the installed set's version,
// a step that fails naming each party that failed it, signatures checked before they count, and an
// abort sent to everyone when the run gives up before the install.
import { randomBytes } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { bytesToHex, parseHex, type Json } from './canonical';
import type { GuardianSet, Member } from './guardian-set';
import type { Identity } from './identity';
import { callParty, RemoteError, type CallResult } from './transport';
import type { MessageType } from './messages';
import { HEALTH_MAX_BYTES, readPublic } from './public-read';

/** A change that failed before any member installed its set; `blamed` are the parties at fault. */
export class MembershipFailure extends Error {
  constructor(
    message: string,
    readonly blamed: number[] = [],
    /** members that refused a step for want of their operator's approval */
    readonly notApproved: number[] = [],
    /** members that did not answer a step in time, or could not be reached */
    readonly silent: number[] = [],
    /** members whose accusation of another did not hold */
    readonly accusers: number[] = [],
  ) {
    super(message);
  }
}

export function describeError(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err?.name === 'TimeoutError') return 'timed out';
  if (err?.cause?.code) return `unreachable (${err.cause.code})`;
  return String(err?.message ?? e).slice(0, 400);
}

export class PartyRun {
  readonly session = bytesToHex(randomBytes(16));

  constructor(
    /** 'resharing' or 'repair': how a failure names the run */
    readonly what: string,
    readonly current: GuardianSet,
    readonly identity: Identity,
    readonly timeoutMs: number,
  ) {}

  call<T extends MessageType>(
    m: Member,
    type: T,
    body: Json,
    timeoutMs = this.timeoutMs,
  ): Promise<CallResult<T>> {
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
  async every<T extends MessageType>(
    type: T,
    members: Member[],
    body: Json = {},
  ): Promise<CallResult<T>[]> {
    const settled = await Promise.allSettled(members.map((m) => this.call(m, type, body)));
    const failed = settled.flatMap((r, i) =>
      r.status === 'rejected' ? [{ m: members[i]!, e: r.reason as unknown }] : [],
    );
    if (failed.length === 0)
      return settled.map((r) => (r as PromiseFulfilledResult<CallResult<T>>).value);
    const notApproved = failed.filter(
      (f) => f.e instanceof RemoteError && f.e.message.includes('not approved'),
    );
    const silent = failed.filter((f) => /^(timed out|unreachable)/.test(describeError(f.e)));
    throw new MembershipFailure(
      `the ${this.what} failed at ${type}: ${failed.map((f) => `guardian ${f.m.id} (${f.m.name}): ${describeError(f.e)}`).join('; ')}`,
      [],
      notApproved.map((f) => f.m.id),
      silent.map((f) => f.m.id),
    );
  }

  /** Signatures from `members` over `digest`, each checked; fewer than `t`: a failure. */
  async signatures(
    type: 'reshare/sign' | 'reshare/handover' | 'repair/sign' | 'repair/handover',
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
      if (r.status === 'rejected') {
        why.push(`guardian ${m.id}: ${describeError(r.reason)}`);
        return;
      }
      const sig = r.value.payload.body.signature;
      if (!schnorr.verify(parseHex(sig, 64), digest, parseHex(m.identityKey, 32)))
        why.push(`guardian ${m.id}: a bad signature`);
      else out[String(m.id)] = sig;
    });
    if (Object.keys(out).length < t)
      throw new MembershipFailure(`fewer than ${t} guardians answered ${type} (${why.join('; ')})`);
    return out;
  }

  /** `<prefix>/abort` to each party (once per identity key), answers or not. */
  async abortAll(
    type: 'reshare/abort' | 'repair/abort',
    parties: Member[],
    reason: string,
  ): Promise<void> {
    const everyone = [...new Map(parties.map((m) => [m.identityKey, m])).values()];
    await Promise.allSettled(everyone.map((m) => this.call(m, type, { reason }, 3_000)));
  }
}

/**
 * The members of `current` (but `except`) that answer their health in `probeMs` as a member on
 * it, in id order: the candidates to deal or help; the others, each with why.
 */
export async function responsiveMembers(
  current: GuardianSet,
  except: number | undefined,
  probeMs: number,
): Promise<{ responsive: number[]; silent: string[] }> {
  const others = current.members.filter((m) => m.id !== except);
  const answers = await Promise.allSettled(
    others.map((m) => readPublic(m, '/v1/health', { timeoutMs: probeMs, maxBytes: HEALTH_MAX_BYTES })), // prettier-ignore
  );
  const responsive: number[] = [];
  const silent: string[] = [];
  answers.forEach((a, i) => {
    const m = others[i]!;
    if (a.status === 'rejected') return silent.push(`guardian ${m.id}: ${describeError(a.reason)}`); // prettier-ignore
    const h = (a.value.body ?? {}) as { identityKey?: unknown; sets?: unknown };
    const member = h.identityKey === m.identityKey && Array.isArray(h.sets) && h.sets.includes(current.version); // prettier-ignore
    if (member) responsive.push(m.id);
    else silent.push(`guardian ${m.id}: not a ready member of set ${current.version}`);
  });
  return { responsive, silent };
}
