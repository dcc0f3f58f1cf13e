// The coordinator: holds no share, only an identity key listed in the set. It asks every guardian
// to decide and signs by ROAST (roast.ts, signing-run.ts): a FROST session with the first t
// guardians that approved, another with t others as soon as one of them stalls or sends a bad
// share (the first kept running), whichever completes first; a guardian whose share fails
// verification, that refuses or that cannot be reached is named and left out of that request. It
// can only obtain a signature that t guardians approved, within n - t + 1 sessions.
import type { FrostPublic, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { bytesToHex, parseHex } from './canonical';
import { commitmentsFromJson, frostIdentifier, publicFromJson } from './frost';
import { type GuardianSet, type Member } from './guardian-set';
import type { Identity } from './identity';
import { collectPriceQuorum, type PriceQuote } from './price/quorum';
import type { Exclusion } from './roast';
import { SigningRun, type SignEvent, type SignResult } from './signing-run';
import { callParty, type CallResult } from './transport';
import { CommitmentPool, type PoolOptions } from './commitment-pool';
import type { MessageType } from './messages';

export { QuorumError, type SignEvent, type SignResult } from './signing-run';
export type { Exclusion, ExclusionCause } from './roast';
export { CommitmentPool, type PoolOptions } from './commitment-pool';

const MAX_SEEN_COMMITMENTS = 200_000;

export interface SignOptions {
  /** wait for every guardian's decision (or its time-out) instead of the first t approvals */
  waitForAll?: boolean;
  /** guardian ids to choose first among the approvers, e.g. the ones closest to the coordinator */
  prefer?: number[];
  /**
   * The session's id instead of a random one (the app server uses `${request nonce}:${input}`, so
   * every guardian files its decision under the request it is about). A guardian keeps its first
   * decision on a session, so a caller reusing an id gets the same answers.
   */
  sessionId?: string;
  /**
   * The first attempt's number (default 1): each guardian's commitments of this signing are
   * numbered from it, at most `attemptsPerSigning(set)` of them. A caller that may sign the same
   * session again (after a failure, or from another process) starts past the attempts it used: a
   * guardian gives one nonce per (session, attempt), ever.
   */
  firstAttempt?: number;
  /** a session's pending member is stalled this long after its first member answered, at least */
  patienceMs?: number;
  /** a session none of whose members answered is stalled after this */
  stallMs?: number;
  /** every exclusion, late ones included (a refusal or time-out after the signature) */
  onExclusion?: (e: Exclusion) => void;
  /**
   * The one check of the group's signature, instead of the coordinator's BIP-340 verification
   * under the group key: for a caller that verifies the signature anyway where it is used (the
   * app server checks the whole transaction by `verifyInputs`). False makes the coordinator check
   * the shares one by one, name who cheated and sign again without them.
   */
  check?: (signature: Uint8Array) => boolean | Promise<boolean>;
  /** each call this signing makes to a guardian, as it is sent (round trips, for tests and benches) */
  onCall?: (guardian: number, type: MessageType) => void;
}

export interface CoordinatorOptions {
  /**
   * Keep a pool of each guardian's preprocessed commitments (commitment-pool.ts), so that a
   * request is decided and signed in one round trip; an empty pool falls back to two.
   */
  preprocess?: PoolOptions | boolean;
}

/** With a pool, a session none of whose members answered is stalled after this: it validates too. */
const ONE_ROUND_STALL_MS = 4_500;

export class Coordinator {
  private readonly pub: FrostPublic;
  private readonly groupKey: Uint8Array;
  /** Every nonce commitment seen: a guardian that sends one twice reuses a nonce and is named. */
  private readonly seenCommitments = new Set<string>();

  /** each guardian's preprocessed commitments, when the coordinator keeps them */
  readonly pool: CommitmentPool | undefined;

  constructor(
    readonly set: GuardianSet,
    private readonly identity: Identity,
    private readonly timeoutMs = 5_000,
    options: CoordinatorOptions = {},
  ) {
    if (!set.coordinators.some((c) => c.identityKey === identity.publicKey))
      throw new Error('this identity is not a coordinator of the guardian set');
    this.pub = publicFromJson(set.frost!, set.t, set.n);
    this.groupKey = parseHex(set.groupKey!, 32, 'group key');
    const { preprocess } = options;
    if (preprocess)
      this.pool = new CommitmentPool(
        set.members,
        (m, count) => this.batch(m, count),
        preprocess === true ? {} : preprocess,
      );
  }

  /** A guardian's batch of preprocessed commitments, each checked as its own and never seen. */
  private async batch(m: Member, count: number) {
    const { payload } = await this.call(m, 'sign/preprocess', { count });
    const { epoch, commitments } = payload.body;
    if (commitments.length > count) throw new Error('more commitments than asked for');
    return { epoch, commitments: commitments.map((c) => this.commitment(m, c)) };
  }

  /** Stops the pool's background refills. */
  close(): void {
    this.pool?.close();
  }

  /**
   * Every guardian's signed price, checked against the set, and the protocol's quorum of them:
   * the quote with the t or more signed prices it is the median of and the hash committing to them.
   */
  priceQuorum(now?: number): Promise<PriceQuote> {
    return collectPriceQuorum(this.set, {
      timeoutMs: this.timeoutMs,
      ...(now === undefined ? {} : { now }),
    });
  }

  private call<T extends MessageType>(m: Member, type: T, body: unknown): Promise<CallResult<T>> {
    return callParty({
      url: m.url,
      identity: this.identity,
      to: m.identityKey,
      setVersion: this.set.version,
      type,
      body,
      timeoutMs: this.timeoutMs,
      // The co-signing rounds concern no one else: a MAC under the pair's key, not a signature.
      auth: 'mac',
    });
  }

  /** A commitment of `m`'s, never seen before by this coordinator; throws why not. */
  private commitment(m: Member, json: unknown): NonceCommitments {
    const c = commitmentsFromJson(json);
    if (c.identifier !== frostIdentifier(m.id))
      throw new Error('commitment names another guardian');
    const hiding = bytesToHex(c.hiding);
    const binding = bytesToHex(c.binding);
    if (this.seenCommitments.has(hiding) || this.seenCommitments.has(binding))
      throw new Error('reused a nonce commitment');
    this.seenCommitments.add(hiding).add(binding);
    while (this.seenCommitments.size > MAX_SEEN_COMMITMENTS) {
      const oldest = this.seenCommitments.values().next().value!;
      this.seenCommitments.delete(oldest);
    }
    return c;
  }

  /**
   * Asks every guardian to sign `message` (32 bytes). `onEvent` is awaited at each step (the
   * tracker's "2 of 3 guardians approved" reads these). Throws QuorumError when fewer than t
   * guardians approve or stay.
   */
  async sign(
    message: Uint8Array,
    context: unknown,
    onEvent: (e: SignEvent) => void | Promise<void> = () => {},
    options: SignOptions = {},
  ): Promise<SignResult> {
    if (message.length !== 32) throw new Error('message must be 32 bytes');
    const sessionId = options.sessionId ?? bytesToHex(randomBytes(32));
    const run = new SigningRun(
      {
        set: this.set,
        pub: this.pub,
        call: (m, type, body) => {
          options.onCall?.(m.id, type);
          return this.call(m, type, body);
        },
        commitment: (m, json) => this.commitment(m, json),
        check:
          options.check ??
          ((signature: Uint8Array) => schnorr.verify(signature, message, this.groupKey)),
        onEvent,
        ...(options.onExclusion ? { onExclusion: options.onExclusion } : {}),
        ...(this.pool ? { pool: this.pool } : {}),
      },
      sessionId,
      message,
      context,
      {
        firstSlot: options.firstAttempt ?? 1,
        waitForAll: options.waitForAll === true,
        ...(options.prefer ? { prefer: options.prefer } : {}),
        ...(options.patienceMs !== undefined ? { patienceMs: options.patienceMs } : {}),
        ...(options.stallMs !== undefined
          ? { stallMs: options.stallMs }
          : this.pool
            ? { stallMs: ONE_ROUND_STALL_MS }
            : {}),
      },
    );
    return run.run();
  }
}

/**
 * How many attempt numbers one signing may use per guardian: one commitment to begin with, and a
 * fresh one after each of the at most n - t + 1 sessions it answers.
 */
export function attemptsPerSigning(set: Pick<GuardianSet, 'n' | 't'>): number {
  return set.n - set.t + 2;
}

export { runDkg, type RotationHooks } from './dkg-coordinator';
