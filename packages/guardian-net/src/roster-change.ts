// What a resharing's and a repair's roster messages share: the refusal they answer with, the
// comparison of two JSON bodies by their canonical form, the head of the roster,
// {session, current, next}, parsed and the current set verified before anything else is read, and
// a guardian's side of either: the one change under way, its session check and its abort.
import { canonicalJson, type Json } from './canonical';
import { checkSession } from './dkg-share-box';
import { ProtocolError } from './envelope';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody } from './guardian-set';
import type { MessageBody, MessageHandlers } from './messages';

export function refuse(message: string): never {
  throw new ProtocolError('refused', message);
}

export const sameJson = (a: unknown, b: unknown) =>
  canonicalJson(JSON.parse(JSON.stringify(a)) as Json) ===
  canonicalJson(JSON.parse(JSON.stringify(b)) as Json);

/** A roster's {session, current, next} (`what` names it in the refusal); the rest stays in `body`. */
export function parseRosterHead(
  raw: unknown,
  what: string,
): { body: Record<string, unknown>; session: string; current: GuardianSet; next: GuardianSetBody } {
  const body = (raw ?? {}) as Record<string, unknown>;
  const session = checkSession(body.session);
  try {
    return { body, session, current: verifySet(body.current), next: parseSetBody(body.next) };
  } catch (e) {
    return refuse(`bad ${what}: ${(e as Error).message}`);
  }
}

/** The changes with the same key a guardian takes part in, by their messages' prefix. */
type Change = 'reshare' | 'repair';

/**
 * A guardian's side of one change with the same key (a resharing or a repair) under way: the steps
 * both take, in messages named `<change>/<step>`, and the change's own in `ownHandlers`.
 */
export abstract class RosterChangeSide<
  C extends Change,
  U extends { spec: { session: string; current: GuardianSetBody } },
  H extends { log: (event: Record<string, unknown>) => void },
> {
  protected under?: U;

  /** `noun` names the change in refusals; `change` prefixes its messages and log events. */
  constructor(
    protected readonly host: H,
    private readonly noun: string,
    private readonly change: C,
  ) {}

  protected abstract roster(raw: MessageBody<`${C}/roster`>): unknown;
  protected abstract send(raw: MessageBody<`${C}/send`>): Promise<unknown>;
  protected abstract finish(raw: MessageBody<`${C}/finish`>): unknown;
  protected abstract sign(raw: MessageBody<`${C}/sign`>): unknown;
  protected abstract handover(raw: MessageBody<`${C}/handover`>): unknown;
  protected abstract install(raw: MessageBody<`${C}/install`>): unknown;
  /** The messages only this change has. */
  protected abstract ownHandlers(): MessageHandlers;

  handlers(): MessageHandlers {
    const c = this.change;
    const steps = {
      [`${c}/roster`]: (b: MessageBody<`${C}/roster`>) => this.roster(b),
      [`${c}/send`]: (b: MessageBody<`${C}/send`>) => this.send(b),
      [`${c}/finish`]: (b: MessageBody<`${C}/finish`>) => this.finish(b),
      [`${c}/sign`]: (b: MessageBody<`${C}/sign`>) => this.sign(b),
      [`${c}/handover`]: (b: MessageBody<`${C}/handover`>) => this.handover(b),
      [`${c}/install`]: (b: MessageBody<`${C}/install`>) => this.install(b),
      [`${c}/abort`]: (b: MessageBody<`${C}/abort`>) => this.abort(b),
    };
    // The keys are `<change>/<step>` with the bodies above; TypeScript widens computed keys.
    return { ...(steps as MessageHandlers), ...this.ownHandlers() };
  }

  get underWay(): boolean {
    return this.under !== undefined;
  }

  /** The installed set a message of the change names, for a guardian that has none of that version. */
  body(version: number): GuardianSetBody | undefined {
    return this.under?.spec.current.version === version ? this.under.spec.current : undefined;
  }

  /** The change under way, when `raw` belongs to its session. */
  protected need(raw: { session: string }): U {
    const { session } = raw;
    if (!this.under)
      throw new ProtocolError('not-ready', `this guardian takes part in no ${this.noun}`);
    if (session !== this.under.spec.session)
      refuse(`this message belongs to another ${this.noun} session`);
    return this.under;
  }

  /** `<change>/abort` {session, reason}: the coordinator gave up; nothing was written. */
  protected abort(raw: { session: string; reason?: unknown }): unknown {
    this.need(raw);
    this.under = undefined;
    const reason = String(raw.reason).slice(0, 300);
    this.host.log({ event: `${this.change}-aborted`, reason });
    return { aborted: true };
  }
}
