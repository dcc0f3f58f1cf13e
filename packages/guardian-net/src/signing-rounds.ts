// A guardian's side of a FROST signing session: its own decision (`sign/propose`), then round 1
// (`sign/commit`, one nonce per attempt, recorded before the commitment leaves) and round 2
// (`sign/share`, the nonce recorded spent before the share exists); or, over commitments it handed
// out ahead of time (`sign/preprocess`, preprocess.ts), decision and share in one message
// (`sign/once`). Nonces live in memory only, so a restart abandons every nonce it had issued and
// none is ever used twice. The store may answer
// later (PostgreSQL): every check that two requests could race is the store's own (a unique key, a
// conditional update), never a read followed by a write here.
import type { OracleEnv } from './oracle/threshold-oracle';
import type { OwnPrice } from './price/own-price';
import type { FrostPublic, FrostSecret, Nonces } from '@noble/curves/abstract/frost.js';
import { bytesToHex, parseHex } from './canonical';
import { ProtocolError } from './envelope';
import { commitmentsToJson, type CommitmentsJson, frost } from './frost';
import type { GuardianSet, GuardianSetBody } from './guardian-set';
import { shareKey, signShare, type ShareKey } from './sign-share';
import { PreprocessedNonces } from './preprocess';
import type { SessionStore } from './store';
import type { MessageBody } from './messages';
import {
  decide,
  parseSession,
  signingList,
  type Decision,
  type SignRequest,
  type Validator,
} from './signing-checks';

export {
  MAX_ATTEMPT,
  parseSession,
  signingList,
  type Decision,
  type SignRequest,
  type Validator,
} from './signing-checks';

/** What a node gives its policy with each request: the set's group key and its own price. */
export interface ValidatorEnv {
  /** x-only hex */
  groupKey: string;
  ownPrice: OwnPrice | null;
  /** every set it holds a share of (rotation: vault-policy/set-keys.ts); absent: this set only */
  sets?: readonly GuardianSet[];
  /** the set the request is signed under: a quote's guardian prices are checked against it */
  set?: GuardianSetBody;
  /** its own oracle and the set the session signs for (oracle/routes.ts); absent in unit tests */
  oracle?: OracleEnv;
}

/** A node's policy: a validator that may read the node's group key and own price. */
export type NodeValidator = (req: SignRequest, env: ValidatorEnv) => Decision | Promise<Decision>;

export interface Ready {
  set: GuardianSet;
  share: FrostSecret;
  pub: FrostPublic;
}

export interface SigningOptions {
  store: SessionStore;
  /** the set, share and public key; throws `not-ready` before the DKG is done */
  ready: () => Ready;
  validate: Validator;
  tamperShare?: (share: Uint8Array) => Uint8Array;
  tamperCommitments?: (c: CommitmentsJson) => CommitmentsJson;
  log: (event: Record<string, unknown>) => void;
}

/** A round-1 nonce waits this long for its round 2; a coordinator retries with a fresh one. */
const NONCE_TTL_MS = 2 * 60_000;
/** Open attempts a guardian holds at once, so a coordinator cannot make it hoard nonces. */
const MAX_OPEN_NONCES = 1024;
/**
 * Nonce pairs made ahead, in memory: a commitment costs two base-point multiplications (~2 ms
 * here), which an approval would otherwise wait for. A pair is only random numbers until it is
 * taken, once, for an attempt and recorded on disk as issued; a restart drops the pool unissued.
 */
const NONCE_POOL = 4;
const POOL_REFILL_IDLE_MS = 25;

export class SigningRounds {
  /** round-1 nonces, in memory only: a restart loses them for good (store.abandonIssuedNonces) */
  private readonly nonces = new Map<
    string,
    { nonces: Nonces; at: number; commitments: CommitmentsJson }
  >();
  /** when this guardian last gave a signature share (ms), for /v1/health; null since its start */
  lastShareAt: number | null = null;
  /** fresh nonce pairs not yet given to any attempt (NONCE_POOL) */
  private readonly pool: ReturnType<typeof frost.commit>[] = [];
  private refill?: NodeJS.Timeout;

  /** the share with what each signing needs of it computed once (sign-share.ts) */
  private key?: { of: FrostSecret; key: ShareKey };

  /** nonces handed out ahead of any request (preprocess.ts), for one-round signing (signing-rounds.ts `once`) */
  readonly pre: PreprocessedNonces;

  constructor(readonly o: SigningOptions) {
    this.pre = new PreprocessedNonces(o.store);
  }

  keyOf(share: FrostSecret, pub: FrostPublic): ShareKey {
    if (this.key?.of !== share) this.key = { of: share, key: shareKey(share, pub) };
    return this.key.key;
  }

  /**
   * A fresh nonce pair, from the pool when it has one. The pool refills once no pair was taken for
   * POOL_REFILL_IDLE_MS (the rounds of a signing come within it), one pair per turn of the event
   * loop, so the refill never holds up a request for more than one pair's time.
   */
  private freshNonces(share: Ready['share']): ReturnType<typeof frost.commit> {
    const made = this.pool.shift() ?? frost.commit(share);
    clearTimeout(this.refill);
    const step = () => {
      if (this.pool.length >= NONCE_POOL) return;
      this.pool.push(frost.commit(share));
      this.refill = setTimeout(step, 0).unref();
    };
    this.refill = setTimeout(step, POOL_REFILL_IDLE_MS);
    this.refill.unref();
    return made;
  }

  async propose(body: MessageBody<'sign/propose'>): Promise<unknown> {
    this.o.ready();
    const { sessionId } = parseSession(body);
    const message = parseHex(body.message, 32, 'message');
    const answer = await this.decided(sessionId, message, body.context);
    return await this.withCommitment(answer, body);
  }

  /**
   * This guardian's decision on a session: an approval already on record stands (no second
   * validation); else its policy decides and the store records it. A session id already used for
   * another message is refused.
   */
  async decided(
    sessionId: string,
    message: Uint8Array,
    context: unknown,
  ): Promise<{ approved: boolean; reason: string | null }> {
    const { store } = this.o;
    const messageHex = bytesToHex(message);
    const earlier = await store.session(sessionId);
    if (earlier) {
      if (earlier.message !== messageHex)
        throw new ProtocolError('refused', 'session id already used for another message', 409);
      // An approval stands. A refusal holds nothing (no nonce was issued for it), so the same
      // message asked again is decided again: a request refused for a passing reason (a stale
      // price, a chain read that timed out) goes through when the user sends it again.
      if (earlier.approved === 1) return { approved: true, reason: earlier.reason };
    }
    const decision = await decide(this.o.validate, { sessionId, message, context });
    const row = await store.recordDecision(
      sessionId,
      messageHex,
      decision.approve,
      decision.approve ? null : decision.reason,
    );
    this.o.log({ event: 'decision', sessionId, approved: row.approved === 1, reason: row.reason });
    return { approved: row.approved === 1, reason: row.reason };
  }

  /**
   * Asked to (`commitAttempt: n`), an approval carries attempt n's commitment: round 1 without a
   * round trip of its own. Issued as `sign/commit` issues it (on disk first); when this guardian is
   * not among the t chosen, the nonce is abandoned after NONCE_TTL_MS like any unused one. The
   * same session proposed again (a request retaken after a failed quorum) gets the same
   * commitment while its nonce is still held unspent: still one nonce, spent at most once.
   */
  private async withCommitment(
    answer: { approved: boolean; reason: string | null },
    body: MessageBody<'sign/propose'>,
  ): Promise<unknown> {
    const asked = body.commitAttempt;
    if (!answer.approved || asked === undefined) return answer;
    const { sessionId } = parseSession(body);
    const { attempt } = parseSession({ sessionId, attempt: asked });
    await this.expireNonces();
    const held = this.nonces.get(`${sessionId}:${attempt}`);
    if (held && (await this.o.store.nonce(sessionId, attempt))?.status === 'issued')
      return { ...answer, commitments: held.commitments };
    try {
      return { ...answer, ...((await this.commit({ sessionId, attempt })) as object) };
    } catch {
      return answer; // e.g. too many open attempts: the coordinator asks with sign/commit
    }
  }

  /** `sign/preprocess`: a batch of fresh commitments for the coordinator `from` (preprocess.ts). */
  async preprocess(from: string, body: MessageBody<'sign/preprocess'>): Promise<unknown> {
    const { share } = this.o.ready();
    const commitments = await this.pre.batch(share, from, body.count);
    const { tamperCommitments } = this.o;
    return {
      epoch: this.pre.epoch,
      commitments: tamperCommitments ? commitments.map(tamperCommitments) : commitments,
    };
  }

  /**
   * `sign/once`: decided and, approved, signed over the list in the one answer. Cheapest first:
   * the list; its own entry an unused commitment it preprocessed for this coordinator; its
   * decision (one per session: an approval on record stands); the nonce out of memory and spent on
   * disk; only then the share. A refusal burns the commitment.
   */
  async once(from: string, body: MessageBody<'sign/once'>): Promise<unknown> {
    const { share, pub, set } = this.o.ready();
    const { sessionId } = parseSession(body);
    const message = parseHex(body.message, 32, 'message');
    const commitments = signingList(body.commitments, set, share.identifier);
    const mine = commitmentsToJson(commitments.find((c) => c.identifier === share.identifier)!);
    if (!this.pre.holds(from, mine))
      throw new ProtocolError(
        'nonce-unavailable',
        'the list does not carry an unused commitment this guardian preprocessed for this coordinator',
        409,
      );
    const answer = await this.decided(sessionId, message, body.context);
    if (!answer.approved) {
      await this.pre.burn(from, mine);
      return answer;
    }
    // Spent on disk before the share exists: a crash from here on can only lose the share.
    const nonces = await this.pre.spend(from, mine, sessionId);
    const signed = signShare(this.keyOf(share, pub), nonces, commitments, message);
    const { tamperShare } = this.o;
    this.lastShareAt = Date.now();
    this.o.log({ event: 'share', sessionId, attempt: 'preprocessed' });
    const sigShare = tamperShare ? tamperShare(signed.share) : signed.share;
    return { approved: true, reason: null, share: bytesToHex(sigShare), rx: bytesToHex(signed.rx) };
  }

  private async approvedSession(sessionId: string) {
    const session = await this.o.store.session(sessionId);
    if (!session) throw new ProtocolError('unknown-session', 'no such signing session', 404);
    if (session.approved !== 1)
      throw new ProtocolError(
        'refused',
        `this guardian refused the request: ${session.reason}`,
        403,
      );
    return session;
  }

  async commit(body: MessageBody<'sign/commit'>): Promise<unknown> {
    const { share } = this.o.ready();
    const { store, tamperCommitments } = this.o;
    const { sessionId, attempt } = parseSession(body);
    await this.approvedSession(sessionId);
    if (await store.nonce(sessionId, attempt))
      throw new ProtocolError(
        'nonce-unavailable',
        'this attempt already has a nonce; start a new attempt',
        409,
      );
    await this.expireNonces();
    if (this.nonces.size >= MAX_OPEN_NONCES)
      throw new ProtocolError(
        'not-ready',
        'too many signing attempts open; try again shortly',
        503,
      );
    const gen = this.freshNonces(share);
    const c = commitmentsToJson(gen.commitments);
    // Recorded before the commitment leaves: a restart marks it abandoned, never signs with it again.
    if (!(await store.recordIssuedNonce(sessionId, attempt, c.hiding, c.binding)))
      throw new ProtocolError('nonce-unavailable', 'this attempt already has a nonce', 409);
    const commitments = tamperCommitments ? tamperCommitments(c) : c;
    this.nonces.set(`${sessionId}:${attempt}`, { nonces: gen.nonces, at: Date.now(), commitments });
    return { commitments };
  }

  /** An attempt left open too long is abandoned: its nonce is dropped and its row says so. */
  private async expireNonces(): Promise<void> {
    const cutoff = Date.now() - NONCE_TTL_MS;
    for (const [key, open] of this.nonces) {
      if (open.at >= cutoff) continue;
      this.nonces.delete(key);
      // The session id may hold a ':' itself (`<nonce>:<input>`): the attempt is after the last.
      const cut = key.lastIndexOf(':');
      await this.o.store.abandonNonce(key.slice(0, cut), Number(key.slice(cut + 1)));
    }
  }

  async share(body: MessageBody<'sign/share'>): Promise<unknown> {
    const { share, pub, set } = this.o.ready();
    const { store } = this.o;
    const { sessionId, attempt } = parseSession(body);
    const session = await this.approvedSession(sessionId);
    const commitments = signingList(body.commitments, set, share.identifier);
    const mine = commitments.find((c) => c.identifier === share.identifier)!;
    const row = await store.nonce(sessionId, attempt);
    if (!row || bytesToHex(mine.hiding) !== row.hiding || bytesToHex(mine.binding) !== row.binding)
      throw new ProtocolError(
        'refused',
        'the list does not carry this guardian’s commitment for this attempt',
      );
    const key = `${sessionId}:${attempt}`;
    await this.expireNonces();
    const nonces = this.nonces.get(key)?.nonces;
    if (!nonces || row.status !== 'issued')
      throw new ProtocolError(
        'nonce-unavailable',
        `nonce for this attempt is ${row.status === 'issued' ? 'lost (restart)' : row.status}`,
        409,
      );
    // Recorded spent before the share exists: a crash from here on can only lose the share.
    if (!(await store.spendNonce(sessionId, attempt)))
      throw new ProtocolError('nonce-unavailable', 'nonce already spent', 409);
    this.nonces.delete(key);
    // The list's entry was checked against the row above, written from these nonces' commitments.
    const signed = signShare(
      this.keyOf(share, pub),
      nonces,
      commitments,
      parseHex(session.message, 32),
    );
    const sigShare = this.o.tamperShare ? this.o.tamperShare(signed.share) : signed.share;
    this.lastShareAt = Date.now();
    this.o.log({ event: 'share', sessionId, attempt });
    return { share: bytesToHex(sigShare), rx: bytesToHex(signed.rx) };
  }
}
