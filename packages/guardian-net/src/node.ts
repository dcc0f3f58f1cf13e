// One guardian node: its own process, identity key, FROST share, SQLite store, price feeds and
// HTTP endpoint. It talks to the coordinator and to the other guardians only through signed
// messages (envelope.ts), answers only parties in the published set, decides every signing request
// itself (the `validate` callback, and for a liquidation its own price), and never lets its share
// or a nonce leave the process. The DKG is dkg-rounds.ts, signing signing-rounds.ts, the price
// price/own-price.ts.
import type { FrostPublic, FrostSecret } from '@noble/curves/abstract/frost.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Json } from './canonical';
import { DkgRounds } from './dkg-rounds';
import { openMessage, ProtocolError, sealMessage, type Payload, type Wire } from './envelope';
import {
  type CommitmentsJson,
  frost,
  frostIdentifier,
  publicFromJson,
  readShareFile,
  writeShareFile,
} from './frost';
import {
  parseSetBody,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import { ensureIdentity, type Identity } from './identity';
import type { PriceFeed } from './price/feeds';
import { liquidationDecision } from './price/liquidation';
import { OwnPriceOracle, type OwnPrice } from './price/own-price';
import { PRICE_PATH } from './price/quorum';
import { SigningRounds, type Decision, type Ready, type SignRequest } from './signing-rounds';
import { GuardianStore } from './store';
import { MESSAGE_PATH, readBody } from './transport';

export type { Decision, SignRequest, Validator } from './signing-rounds';

/** What a node gives its policy with each request: the set's group key and its own price. */
export interface ValidatorEnv {
  /** x-only hex */
  groupKey: string;
  ownPrice: OwnPrice | null;
}

/** A node's policy: a validator that may read the node's group key and own price. */
export type NodeValidator = (req: SignRequest, env: ValidatorEnv) => Decision | Promise<Decision>;

export const NODE_VERSION = '0.2.0';

export interface NodePriceOptions {
  /** this guardian's own exchange feeds (kind@baseUrl, as PRICE_FEEDS) */
  feeds: PriceFeed[];
  tickMs?: number;
  timeoutMs?: number;
  maxSpreadBasisPoints?: number;
}

export interface NodeOptions {
  id: number;
  /** holds identity.json, share.json, store.sqlite and guardian-set.json */
  dir: string;
  /** the unsigned roster a DKG starts from; ignored once the node has a set and a share */
  roster?: GuardianSetBody;
  host?: string;
  /** defaults to the port of this guardian's URL in the set (or roster) */
  port?: number;
  validate: NodeValidator;
  /** its own price feeds; without them it serves no price and refuses every liquidation */
  price?: NodePriceOptions;
  /** Test fixtures only (a malicious guardian): rewrites the share before it is sent. */
  tamperShare?: (share: Uint8Array) => Uint8Array;
  /** Test fixtures only (a malicious guardian): rewrites the commitments before they are sent. */
  tamperCommitments?: (c: CommitmentsJson) => CommitmentsJson;
  log?: (event: Record<string, unknown>) => void;
}

export const paths = (dir: string) => ({
  identity: join(dir, 'identity.json'),
  share: join(dir, 'share.json'),
  store: join(dir, 'store.sqlite'),
  set: join(dir, 'guardian-set.json'),
});

export class GuardianNode {
  readonly identity: Identity;
  readonly store: GuardianStore;
  private set?: GuardianSet;
  private share?: FrostSecret;
  private pub?: FrostPublic;
  private dkg?: DkgRounds;
  private readonly signing: SigningRounds;
  private readonly price?: OwnPriceOracle;
  private server?: Server;
  private readonly startedAt = Date.now();
  private readonly log: (event: Record<string, unknown>) => void;

  constructor(private readonly opts: NodeOptions) {
    const p = paths(opts.dir);
    this.log = opts.log ?? (() => {});
    this.identity = ensureIdentity(p.identity);
    this.store = new GuardianStore(p.store);
    const abandoned = this.store.abandonIssuedNonces();
    if (abandoned > 0) this.log({ event: 'nonces-abandoned', count: abandoned });
    if (existsSync(p.set) && existsSync(p.share)) {
      this.set = verifySet(JSON.parse(readFileSync(p.set, 'utf8')));
      const share = readShareFile(p.share);
      this.installShare(share.secret, share.guardianId, share.groupKey);
    } else if (opts.roster) {
      const roster = parseSetBody(opts.roster);
      const me = roster.members[opts.id - 1];
      if (!me || me.identityKey !== this.identity.publicKey)
        throw new Error(`guardian ${opts.id} is not in the roster with this identity key`);
      this.dkg = new DkgRounds(opts.id, this.identity, roster);
    } else {
      throw new Error('no guardian set and share in the directory, and no roster to run a DKG');
    }
    if (opts.price && opts.price.feeds.length > 0)
      this.price = new OwnPriceOracle({
        ...opts.price,
        guardian: opts.id,
        secretKey: this.identity.secretKey,
        setVersion: () => this.body.version,
        log: this.log,
      });
    this.signing = new SigningRounds({
      store: this.store,
      ready: () => this.needReady(),
      // A liquidation is refused on this guardian's own price before the rest of the policy.
      validate: (req) => {
        const ownPrice = this.price?.current() ?? null;
        const own = liquidationDecision(req.context, ownPrice);
        if (own && !own.approve) return own;
        return opts.validate(req, { groupKey: this.set?.groupKey ?? '', ownPrice });
      },
      log: this.log,
      ...(opts.tamperShare ? { tamperShare: opts.tamperShare } : {}),
      ...(opts.tamperCommitments ? { tamperCommitments: opts.tamperCommitments } : {}),
    });
  }

  private installShare(secret: FrostSecret, guardianId: number, groupKey: string): void {
    const set = this.set!;
    if (guardianId !== this.opts.id) throw new Error('share file belongs to another guardian');
    if (set.groupKey !== groupKey) throw new Error('share file is for another group key');
    const me = set.members[this.opts.id - 1];
    if (!me || me.identityKey !== this.identity.publicKey)
      throw new Error(`guardian ${this.opts.id} is not in the set with this identity key`);
    const pub = publicFromJson(set.frost!, set.t, set.n);
    // The share must match this guardian's verifying share in the published set.
    frost.validateSecret(secret, pub);
    if (secret.identifier !== frostIdentifier(this.opts.id))
      throw new Error('share file is for another FROST identifier');
    this.share = secret;
    this.pub = pub;
  }

  get members(): Member[] {
    return this.body.members;
  }

  private get body(): GuardianSetBody {
    return (this.set ?? this.dkg?.roster)!;
  }

  private knownSenders(): Set<string> {
    const b = this.body;
    return new Set([
      ...b.members.map((m) => m.identityKey),
      ...b.coordinators.map((c) => c.identityKey),
    ]);
  }

  /** Public: what the future /network page shows of this guardian. */
  health(): Record<string, unknown> {
    const last = this.price?.last() ?? null;
    const own = this.price?.current();
    return {
      id: this.opts.id,
      name: this.members[this.opts.id - 1]?.name,
      state: this.set ? 'ready' : 'dkg',
      setVersion: this.body.version,
      groupKey: this.set?.groupKey ?? null,
      identityKey: this.identity.publicKey,
      version: NODE_VERSION,
      uptimeMs: Date.now() - this.startedAt,
      lastPrice: last && { priceCents: last.priceCents, time: last.time },
      priceFresh: own?.fresh ?? false,
      priceProblem: own ? (own.fresh ? null : own.reason) : 'no price feeds configured',
      lastSignatureAt: this.signing.lastShareAt,
    };
  }

  /** Handles one raw message body; returns the signed reply or throws a ProtocolError. */
  async handle(raw: string): Promise<Wire> {
    const body = this.body;
    const payload = openMessage(raw, {
      self: this.identity.publicKey,
      knownSenders: this.knownSenders(),
      remember: (from, nonce, ts) => this.store.rememberMessage(from, nonce, ts),
    });
    if (payload.setVersion !== body.version)
      throw new ProtocolError('refused', `guardian set version ${body.version} expected`, 409);
    const isCoordinator = body.coordinators.some((c) => c.identityKey === payload.from);
    const peer = body.members.find((m) => m.identityKey === payload.from);
    const result = await this.dispatch(payload, isCoordinator, peer);
    return sealMessage(
      {
        type: payload.type,
        from: this.identity.publicKey,
        to: payload.from,
        setVersion: body.version,
        re: payload.nonce,
        body: result as Json,
      },
      this.identity.secretKey,
    );
  }

  private async dispatch(p: Payload, fromCoordinator: boolean, peer?: Member): Promise<unknown> {
    if (p.type === 'dkg/share') {
      if (!peer) throw new ProtocolError('not-allowed', 'dkg/share comes from a guardian', 403);
      return this.needDkg().receive(peer, p.body);
    }
    const handler = this.coordinatorHandlers()[p.type];
    if (!handler)
      throw new ProtocolError('malformed', `unknown message type ${p.type.slice(0, 40)}`);
    if (!fromCoordinator)
      throw new ProtocolError('not-allowed', `${p.type} is for the coordinator only`, 403);
    return handler(p.body);
  }

  private coordinatorHandlers(): Record<string, (body: unknown) => unknown> {
    return {
      'dkg/round1': () => this.needDkg().round1(),
      'dkg/round2': (b) => this.needDkg().round2(b),
      'dkg/finish': () => this.needDkg().finish(),
      'set/sign': (b) => this.needDkg().signSet(b),
      'set/install': (b) => this.setInstall(b),
      'sign/propose': (b) => this.signing.propose(b),
      'sign/commit': (b) => this.signing.commit(b),
      'sign/share': (b) => this.signing.share(b),
    };
  }

  private needDkg(): DkgRounds {
    if (this.set || !this.dkg)
      throw new ProtocolError('not-allowed', 'this guardian already has a share');
    return this.dkg;
  }

  private needReady(): Ready {
    if (!this.set || !this.share || !this.pub)
      throw new ProtocolError('not-ready', 'this guardian has no share yet');
    return { set: this.set, share: this.share, pub: this.pub };
  }

  private setInstall(body: unknown): unknown {
    const dkg = this.needDkg();
    const raw = (body as { set?: unknown })?.set;
    dkg.ownSetBody(raw);
    let set: GuardianSet;
    try {
      set = verifySet(raw);
    } catch (e) {
      throw new ProtocolError('refused', (e as Error).message);
    }
    const result = dkg.result();
    const p = paths(this.opts.dir);
    writeShareFile(p.share, {
      guardianId: this.opts.id,
      secret: result.secret,
      groupKey: set.groupKey!,
    });
    writeFileSync(p.set, JSON.stringify(set, null, 2) + '\n');
    this.set = set;
    this.installShare(result.secret, this.opts.id, set.groupKey!);
    dkg.clean();
    this.dkg = undefined;
    this.log({ event: 'dkg-complete', groupKey: set.groupKey });
    return { installed: true };
  }

  // ---- HTTP ----

  private route(req: IncomingMessage, res: ServerResponse): void {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'GET' && req.url === '/v1/health') return send(200, this.health());
    if (req.method === 'GET' && req.url === '/v1/set') {
      if (!this.set) return send(404, { error: { code: 'not-ready', message: 'no set yet' } });
      return send(200, this.set);
    }
    if (req.method === 'GET' && req.url === PRICE_PATH) {
      const own = this.price?.current();
      if (own?.fresh) return send(200, own.price);
      const message = own ? `no fresh price: ${own.reason}` : 'no price feeds configured';
      return send(503, { error: { code: 'no-price', message } });
    }
    if (req.method !== 'POST' || req.url !== MESSAGE_PATH)
      return send(404, { error: { code: 'malformed', message: 'no such endpoint' } });
    readBody(req)
      .then((raw) => this.handle(raw))
      .then((wire) => send(200, wire))
      .catch((e: unknown) => {
        const err =
          e instanceof ProtocolError ? e : new ProtocolError('internal', 'internal error', 500);
        if (!(e instanceof ProtocolError))
          this.log({ event: 'error', message: (e as Error).message });
        else this.log({ event: 'refused', code: err.code, message: err.message });
        if (!res.headersSent) {
          res.setHeader('connection', 'close');
          send(err.status, { error: { code: err.code, message: err.message } });
        }
      });
  }

  async listen(): Promise<number> {
    const server = createServer((req, res) => this.route(req, res));
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

  private listenPort(): number {
    if (this.opts.port !== undefined) return this.opts.port;
    const url = new URL(this.members[this.opts.id - 1]!.url);
    return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  }

  async close(): Promise<void> {
    await this.price?.stop();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.store.close();
  }
}
