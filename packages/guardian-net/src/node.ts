// One guardian node: its own process, identity key, FROST share, store (a SQLite file, or its own
// PostgreSQL database: store-pg.ts), price feeds and HTTP endpoint. It talks to the coordinator and
// to the other guardians only through signed messages (envelope.ts), answers only parties in the
// published set, decides every signing request itself (the `validate` callback, and for a
// liquidation its own price), and never lets its share or a nonce leave the process. The DKG is
// dkg-rounds.ts, signing signing-rounds.ts, the price price/own-price.ts. After a rotation it holds
// a share of each set it belongs to (set-files.ts) and signs for each: a message's `setVersion`
// says which; handover.ts is its side of a rotation.
import type { FrostSecret } from '@noble/curves/abstract/frost.js';
import type { Server } from 'node:http';
import type { Json } from './canonical';
import { DkgRounds } from './dkg-rounds';
import {
  openEnvelope,
  ProtocolError,
  sealMessage,
  type Auth,
  type Payload,
  type Wire,
} from './envelope';
import { frost, frostIdentifier, publicFromJson } from './frost';
import { parseSetBody, type GuardianSet, type GuardianSetBody, type Member } from './guardian-set';
import { readApprovals } from './approval-files';
import { acceptRoster, handoverFor, installableSet, sameRoster } from './handover';
import { guardianServer, portOf } from './node-http';
import { peekType, receiveFirstRoster } from './first-roster';
import { readPublicPart } from './guardian-init';
import type { Identity } from './identity';
import { openGuardianDir } from './installed-dir';
import { liquidationDecision } from './price/liquidation';
import { freshPriceReply, OwnPriceOracle, priceHealth, type OwnPrice } from './price/own-price';
import { FRESH_PRICE_MESSAGE } from './price/quorum';
import { keepApproved } from './price/kept-prices';
import { PublicRoutes } from './public-routes';
import { SigningRounds, type Ready } from './signing-rounds';
import { needDkg, needReady, type Context, type Installed } from './node-context';
import { loadInstalledSets, writeInstalledSet } from './set-files';
import type { NodeOptions } from './node-options';
import { scopedSessions, type NodeStore } from './store';
import { chooseNodeStore } from './store-pg';
import { NodeOracle } from './oracle/routes';
import { guardianHealth } from './node-health';
import { messageHandler, messageType, parseMessageBody, type MessageBody, type MessageHandlers } from './messages'; // prettier-ignore
import { GuardianReshare, openWaitingReshare, WAITING_TYPES } from './reshare-node';
import { GuardianRepair } from './repair-node';

export const NODE_VERSION = '0.2.0';
export type { NodeOptions, NodePriceOptions } from './node-options';

export class GuardianNode {
  readonly identity: Identity;
  readonly store: NodeStore;
  /** every set it holds a share of, by version; the newest is its current set */
  private readonly installed = new Map<number, Installed>();
  /** a DKG under way: its first set's, or the next set's in a rotation */
  private dkg?: DkgRounds;
  private readonly price?: OwnPriceOracle;
  private server?: Server;
  private readonly startedAt = Date.now();
  /** its last price and share before this start, from its store (null until the first of each) */
  private before: { price: unknown; signedAt: number | null } = { price: null, signedAt: null };
  private readonly log: (event: Record<string, unknown>) => void;
  /** its id in its set (or roster); 0 while it waits for its first roster */
  private id: number;
  private readonly publicRoutes: PublicRoutes;
  private readonly reshare = new GuardianReshare({ identity: () => this.identity, current: () => this.current, approvals: (change) => readApprovals(this.opts.dir, change), install: (set, id, secret) => this.installReshared(set, id, secret), log: (e) => this.log(e), tamperDeal: (sub, to) => this.opts.tamperReshareDeal?.(sub, to) ?? sub }); // prettier-ignore
  private readonly repair = new GuardianRepair({ identity: () => this.identity, current: () => this.current, approvals: () => readApprovals(this.opts.dir, 'repair'), install: (set, id, secret) => this.installReshared(set, id, secret), log: (e) => this.log(e), tamperSum: (sum) => this.opts.tamperRepairSum?.(sum) ?? sum }); // prettier-ignore
  private readonly oracle = new NodeOracle(() => ({ ...this.opts, id: this.id, identitySecret: this.identity.secretKey, setVersion: this.body?.version ?? 0, ownPrice: this.price?.current() ?? null })); // prettier-ignore

  constructor(private readonly opts: NodeOptions) {
    this.log = opts.log ?? (() => {});
    this.identity = openGuardianDir(opts.dir, { id: opts.id ?? 0, namedInSet: opts.namedInSet === true }); // prettier-ignore
    const { databaseUrlFile } = opts;
    this.store = chooseNodeStore({ dir: opts.dir, databaseUrlFile, log: this.log }).store;
    const sets = loadInstalledSets(opts.dir);
    const roster = opts.roster && sets.length === 0 ? parseSetBody(opts.roster) : undefined;
    const byKey = (b: GuardianSetBody) =>
      b.members.find((m) => m.identityKey === this.identity.publicKey)?.id ?? 0;
    this.id = opts.id ?? sets.at(-1)?.share.guardianId ?? (roster ? byKey(roster) : 0);
    for (const { set, share } of sets) {
      // A resharing's set replaces the set of the same key it was dealt from: that one retires.
      if (sets.some((l) => l.set.version > set.version && l.set.groupKey === set.groupKey))
        continue;
      if (share.guardianId !== this.id) throw new Error('share file belongs to another guardian');
      this.installShare(set, share.secret);
    }
    // With a share, a rotation's roster comes by rotate/roster; with a roster file, the DKG starts
    // from it; with neither, the guardian waits for its first roster (first-roster.ts).
    if (roster) {
      if (roster.members[this.id - 1]?.identityKey !== this.identity.publicKey)
        throw new Error(`guardian ${this.id} is not in the roster with this identity key`);
      this.dkg = this.newDkg(roster);
    }
    if (opts.price && opts.price.feeds.length > 0)
      this.price = new OwnPriceOracle({
        ...opts.price,
        guardian: this.id,
        secretKey: this.identity.secretKey,
        setVersion: () => this.body?.version ?? 0,
        onPrice: ({ priceCents, time }) =>
          void Promise.resolve(
            this.store.putFact('lastPrice', JSON.stringify({ priceCents, time })),
          ).catch(() => {}),
        log: this.log,
      });
    this.publicRoutes = new PublicRoutes({
      ...(opts.publicRateLimit ? { limit: opts.publicRateLimit } : {}),
      health: () => this.health(),
      oracle: this.oracle,
      set: () => this.current?.set,
      price: this.price,
      dir: opts.dir,
    });
  }

  /** Checks a set's share against its verifying share and starts signing for that set. */
  private installShare(set: GuardianSet, secret: FrostSecret): void {
    const { opts } = this;
    const me = set.members[this.id - 1];
    if (!me || me.identityKey !== this.identity.publicKey)
      throw new Error(`guardian ${this.id} is not in the set with this identity key`);
    const pub = publicFromJson(set.frost!, set.t, set.n);
    // The share must match this guardian's verifying share in the published set.
    frost.validateSecret(secret, pub);
    if (secret.identifier !== frostIdentifier(this.id))
      throw new Error('share file is for another FROST identifier');
    // Set 1 keeps its session rows unprefixed (they predate rotation); each later set has its own.
    const store = scopedSessions(this.store, set.version === 1 ? '' : `v${set.version}/`);
    const ready: Ready = { set, share: secret, pub };
    const signing = new SigningRounds({
      store,
      ready: () => ready,
      // A liquidation is refused on this guardian's own price before the rest of the policy.
      // An approval stands once the quote's signed prices are kept in its directory (kept-prices.ts).
      validate: async (req) => {
        const ownPrice = this.price?.current() ?? null;
        const own = liquidationDecision(req.context, ownPrice);
        const decision = own && !own.approve ? own : await opts.validate(req, this.policyEnv(set, ownPrice)); // prettier-ignore
        return keepApproved(opts.dir, req.context, decision);
      },
      log: (e) => this.log({ ...e, setVersion: set.version }),
      ...(opts.tamperShare ? { tamperShare: opts.tamperShare } : {}),
      ...(opts.tamperCommitments ? { tamperCommitments: opts.tamperCommitments } : {}),
    });
    this.installed.set(set.version, { ...ready, signing });
  }

  /** A session's policy environment: oracle statements and quoted prices are the newest set's. */
  private policyEnv(set: GuardianSet, ownPrice: OwnPrice | null) {
    const sets = [...this.installed.values()].map((i) => i.set);
    const oracle = this.oracle.env(this.current?.set ?? set, ownPrice);
    return { ...oracle, groupKey: set.groupKey ?? '', sets, set };
  }

  /** The newest set it holds a share of. */
  private get current(): Installed | undefined {
    return this.installed.get(Math.max(...this.installed.keys()));
  }

  get members(): Member[] {
    return this.body?.members ?? [];
  }

  /** its newest set, else the roster of its DKG under way; none while it waits for a roster */
  private get body(): GuardianSetBody | undefined {
    return this.current?.set ?? this.dkg?.roster;
  }

  private newDkg(roster: GuardianSetBody, session?: string): DkgRounds {
    return new DkgRounds(this.id, this.identity, roster, session, this.opts.tamperDkgShare);
  }

  /** Every party of every set it holds, and of a DKG under way; `handle` checks the version's. */
  private knownSenders(): Set<string> {
    const bodies = [...[...this.installed.values()].map((i) => i.set), this.dkg?.roster];
    const parties = bodies.flatMap((b) => (b ? [...b.members, ...b.coordinators] : []));
    return new Set([...parties.map((p) => p.identityKey), ...this.reshare.parties(), ...this.repair.parties()]); // prettier-ignore
  }

  private context(version: number): Context {
    const installed = this.installed.get(version);
    if (installed) return { body: installed.set, installed };
    if (this.dkg?.roster.version === version) return { body: this.dkg.roster, dkg: this.dkg };
    const reshared = this.reshare.body(version) ?? this.repair.body(version);
    if (reshared) return { body: reshared };
    const expected = this.body
      ? `guardian set version ${this.body.version} expected`
      : 'this guardian waits for its first roster';
    throw new ProtocolError('refused', expected, 409);
  }

  /** Public: what the /network page shows of this guardian (node-health.ts). */
  health(): Record<string, unknown> {
    const state = this.current ? 'ready' : this.dkg ? 'dkg' : this.reshare.underWay ? 'reshare' : this.repair.underWay ? 'repair' : 'waiting'; // prettier-ignore
    const { identity, installed, startedAt, oracle, publicRoutes } = this;
    return guardianHealth({ id: this.id, name: this.members[this.id - 1]?.name, state, setVersion: this.body?.version ?? null, current: this.current?.set, installed, rotatingTo: this.current && this.dkg ? this.dkg.roster.version : null, identityKey: identity.publicKey, version: NODE_VERSION, startedAt, price: priceHealth(this.price, this.before.price), oracleStatementsSigned: oracle.signed, publicRequestsLimited: publicRoutes.limited, signedBefore: this.before.signedAt }); // prettier-ignore
  }

  /** Handles one raw message body; returns the signed reply or throws a ProtocolError. */
  async handle(raw: string): Promise<Wire> {
    // Until it holds a set, a roster for its first DKG may come from a coordinator it has not met.
    if (this.installed.size === 0 && peekType(raw) === 'dkg/roster') return this.firstRoster(raw);
    const type = peekType(raw);
    const waiting = this.installed.size === 0 && WAITING_TYPES.includes(type ?? '');
    const { payload, auth } = waiting
      ? openWaitingReshare(raw, this.identity, this.opts.firstCoordinator)
      : openEnvelope(raw, { self: this.identity.publicKey, secretKey: this.identity.secretKey, knownSenders: this.knownSenders() }); // prettier-ignore
    // Only once the signature holds (as openEnvelope's `remember`), now that the store may wait.
    if (!(await this.store.rememberMessage(payload.from, payload.nonce, payload.ts)))
      throw new ProtocolError('replayed', 'message nonce was already used', 409);
    if (waiting) return this.reply(payload, payload.setVersion, await this.waitingHandler(payload.type)(payload.body), auth); // prettier-ignore
    const ctx = this.context(payload.setVersion);
    const isCoordinator = ctx.body.coordinators.some((c) => c.identityKey === payload.from);
    const peer = ctx.body.members.find((m) => m.identityKey === payload.from);
    if (!isCoordinator && !peer)
      throw new ProtocolError(
        'sender-not-in-set',
        `sender is not in guardian set version ${ctx.body.version}`,
        403,
      );
    const result = await this.dispatch(payload, ctx, isCoordinator, peer, raw);
    return this.reply(payload, ctx.body.version, result, auth);
  }

  /** `dkg/roster` {roster, session}: joins a first DKG (a new session replaces one under way). */
  private async firstRoster(raw: string): Promise<Wire> {
    const { payload, auth, roster, session, id } = await receiveFirstRoster(raw, {
      identity: this.identity,
      dir: this.opts.dir,
      startedAs: this.opts.id,
      coordinator: this.opts.firstCoordinator,
      remember: (from, nonce, ts) => this.store.rememberMessage(from, nonce, ts),
    });
    if (this.dkg?.session !== session) {
      this.dkg?.clean();
      this.id = id;
      this.dkg = this.newDkg(roster, session);
      this.log({ event: 'dkg-joined', guardian: id, session, t: roster.t, n: roster.n });
    }
    return this.reply(payload, 0, { joined: id }, auth);
  }

  /** A resharing's or a repair's message to a guardian that holds no set yet. */
  private waitingHandler(type: string): (body: unknown) => unknown {
    const handlers: MessageHandlers = { ...this.reshare.handlers(), ...this.repair.handlers() };
    return messageHandler(handlers, messageType(type))!;
  }

  /** `dkg/abort` {session, reason}: the coordinator gave this DKG up; its state is dropped. */
  private abortDkg(ctx: Context, b: MessageBody<'dkg/abort'>): unknown {
    const dkg = needDkg(ctx);
    if (b.session !== dkg.session) throw new ProtocolError('refused', 'another DKG session');
    dkg.clean();
    this.dkg = undefined;
    this.log({ event: 'dkg-aborted', session: dkg.session, reason: String(b.reason).slice(0, 300) }); // prettier-ignore
    return { aborted: true };
  }

  private reply(p: Payload, setVersion: number, result: unknown, auth: Auth): Wire {
    const { type, from: to, nonce: re } = p;
    const from = this.identity.publicKey;
    const fields = { type, from, to, setVersion, re, body: result as Json };
    return sealMessage(fields, this.identity.secretKey, auth);
  }

  private async dispatch(
    p: Payload,
    ctx: Context,
    fromCoordinator: boolean,
    peer: Member | undefined,
    raw: string,
  ): Promise<unknown> {
    const type = messageType(p.type);
    if (type === 'dkg/share') {
      if (!peer) throw new ProtocolError('not-allowed', 'dkg/share comes from a guardian', 403);
      return needDkg(ctx).receive(peer, parseMessageBody(type, p.body), JSON.parse(raw) as Wire);
    }
    if (type === 'reshare/deal' && peer) return this.reshare.deal(peer.identityKey, parseMessageBody(type, p.body)); // prettier-ignore
    if ((type === 'repair/piece' || type === 'repair/sum') && peer) return this.repair.fromPeer(type, peer.identityKey, parseMessageBody(type, p.body)); // prettier-ignore
    const handler = messageHandler(this.coordinatorHandlers(ctx, p.from), type);
    if (!handler) throw new ProtocolError('malformed', `unknown message type ${type}`);
    if (!fromCoordinator)
      throw new ProtocolError('not-allowed', `${type} is for the coordinator only`, 403);
    return handler(p.body);
  }

  private coordinatorHandlers(ctx: Context, from: string): MessageHandlers {
    return {
      'dkg/round1': () => needDkg(ctx).round1(),
      'dkg/round2': (b) => needDkg(ctx).round2(b),
      'dkg/finish': () => needDkg(ctx).finish(),
      'dkg/abort': (b) => this.abortDkg(ctx, b),
      'set/sign': (b) => needDkg(ctx).signSet(b),
      'set/install': (b) => this.setInstall(ctx, b),
      'sign/propose': (b) => needReady(ctx).signing.propose(b),
      'sign/commit': (b) => needReady(ctx).signing.commit(b),
      'sign/share': (b) => needReady(ctx).signing.share(b),
      // Preprocessed commitments are bound to the coordinator they were issued to.
      'sign/preprocess': (b) => needReady(ctx).signing.preprocess(from, b),
      'sign/once': (b) => needReady(ctx).signing.once(from, b),
      'rotate/roster': (b) => this.rotateRoster(ctx, b),
      'set/handover': (b) =>
        handoverFor(this.needCurrent(ctx).set, this.identity, b, this.dkg, this.approvals()),
      [FRESH_PRICE_MESSAGE]: () => freshPriceReply(this.price),
      ...this.reshare.handlers(),
      ...this.repair.handlers(),
    };
  }

  /** Its operator's approvals, read from its own directory at each ask (approval-files.ts). */
  private approvals = () => readApprovals(this.opts.dir, 'rotation');
  /** A rotation starts from the newest set only. */
  private needCurrent(ctx: Context): Installed {
    const installed = needReady(ctx);
    if (installed !== this.current)
      throw new ProtocolError('refused', `set ${installed.set.version} is not the newest`);
    return installed;
  }

  /** `rotate/roster`: joins the next set's DKG, keeping its current set and share meanwhile. */
  private rotateRoster(ctx: Context, body: MessageBody<'rotate/roster'>): unknown {
    const current = this.needCurrent(ctx).set;
    const roster = acceptRoster(current, this.id, this.identity, body, this.approvals());
    if (!this.dkg || !sameRoster(this.dkg.roster, roster)) {
      this.dkg?.clean();
      this.dkg = new DkgRounds(this.id, this.identity, roster);
      this.log({ event: 'rotation-dkg', version: roster.version });
    }
    return { joined: roster.version };
  }

  /** The set its DKG made, signed by every member (and, from version 2, the handover). */
  private setInstall(ctx: Context, body: MessageBody<'set/install'>): unknown {
    const dkg = needDkg(ctx);
    const set = installableSet(dkg, body, (v) => this.installed.get(v)?.set);
    const result = dkg.result();
    writeInstalledSet(this.opts.dir, set, {
      guardianId: this.id,
      secret: result.secret,
      groupKey: set.groupKey!,
    });
    this.installShare(set, result.secret);
    dkg.clean();
    this.dkg = undefined;
    this.log({ event: 'dkg-complete', groupKey: set.groupKey, version: set.version });
    return { installed: true };
  }

  /** A resharing's set (share first, then the set file); the set of the same key it replaces retires. */
  private installReshared(set: GuardianSet, id: number, secret: FrostSecret): void {
    writeInstalledSet(this.opts.dir, set, { guardianId: id, secret, groupKey: set.groupKey! });
    this.id = id;
    this.installShare(set, secret);
    for (const [v, i] of this.installed)
      if (v < set.version && i.set.groupKey === set.groupKey) this.installed.delete(v);
  }

  async listen(): Promise<number> {
    await this.store.open();
    const abandoned = await this.store.abandonIssuedNonces(); // before any request can come
    if (abandoned > 0) this.log({ event: 'nonces-abandoned', count: abandoned });
    const price = await this.store.fact('lastPrice');
    this.before = { price: price && JSON.parse(price), signedAt: await this.store.lastSignedAt() };
    const server = await guardianServer(this.identity, this.ownUrl(), this.opts.insecurePlainHttp === true, { publicRoutes: this.publicRoutes, handle: (raw) => this.handle(raw), log: this.log }); // prettier-ignore
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort(), this.opts.host ?? '127.0.0.1', () => resolve());
    });
    this.price?.start();
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : this.listenPort();
  }

  private ownUrl(): string | undefined {
    return this.members[this.id - 1]?.url ?? readPublicPart(this.opts.dir)?.url;
  }

  private listenPort(): number {
    return this.opts.port ?? portOf(this.ownUrl());
  }

  async close(): Promise<void> {
    await this.price?.stop();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    await this.store.close();
  }
}
