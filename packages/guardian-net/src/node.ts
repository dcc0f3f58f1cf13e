// One guardian node: its own process, identity key, FROST share, SQLite store and HTTP endpoint.
// It talks to the coordinator and to the other guardians only through signed messages
// (envelope.ts), answers only parties in the published set, decides every signing request itself
// (the `validate` callback), and never lets its share or a nonce leave the process.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type {
  DKG_Round1,
  DKG_Secret,
  FrostPublic,
  FrostSecret,
  Nonces,
} from '@noble/curves/abstract/frost.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, parseHex, utf8ToBytes } from './canonical';
import { openMessage, ProtocolError, sealMessage, type Payload, type Wire } from './envelope';
import {
  commitmentsFromJson,
  commitmentsToJson,
  type CommitmentsJson,
  frost,
  frostIdentifier,
  groupKeyXOnly,
  publicFromJson,
  publicToJson,
  readShareFile,
  writeShareFile,
} from './frost';
import {
  parseSetBody,
  setBodyJson,
  signSet,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
  type Member,
} from './guardian-set';
import { ensureIdentity, type Identity } from './identity';
import { GuardianStore } from './store';
import { callParty, checkReply, MESSAGE_PATH, readBody } from './transport';
import { canonicalJson, type Json } from './canonical';

export const NODE_VERSION = '0.1.0';

export interface SignRequest {
  sessionId: string;
  /** the 32-byte digest to sign (a BIP-341 sighash in the vault flows) */
  message: Uint8Array;
  /** what the coordinator says the digest is for; the guardian checks it against its own view */
  context: unknown;
}

export type Decision = { approve: true } | { approve: false; reason: string };
export type Validator = (req: SignRequest) => Decision | Promise<Decision>;

export interface NodeOptions {
  id: number;
  /** holds identity.json, share.json, store.sqlite and guardian-set.json */
  dir: string;
  /** the unsigned roster a DKG starts from; ignored once the node has a set and a share */
  roster?: GuardianSetBody;
  host?: string;
  /** defaults to the port of this guardian's URL in the set (or roster) */
  port?: number;
  validate: Validator;
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

interface DkgState {
  secret: DKG_Secret;
  round1: DKG_Round1[];
  received: Map<string, Uint8Array>;
  result?: { public: FrostPublic; secret: FrostSecret };
}

const SESSION_ID = /^[0-9a-f]{64}$/;
/** A round-1 nonce waits this long for its round 2; a coordinator retries with a fresh one. */
const NONCE_TTL_MS = 2 * 60_000;
/** Open attempts a guardian holds at once, so a coordinator cannot make it hoard nonces. */
const MAX_OPEN_NONCES = 1024;
/** A decision must come before the coordinator's own time-out (5 s) gives up on this guardian. */
const VALIDATE_TIMEOUT_MS = 4_000;

/** AES-256-GCM under an ECDH key of the two identity keys: a DKG share readable by its receiver only. */
function shareKey(identity: Identity, peer: string): Buffer {
  const shared = secp256k1.getSharedSecret(identity.secretKey, parseHex('02' + peer, 33));
  return Buffer.from(
    sha256(new Uint8Array([...utf8ToBytes('unit/dkg-share'), ...shared.subarray(1)])),
  );
}

function encryptShare(identity: Identity, peer: string, plain: Uint8Array): Json {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', shareKey(identity, peer), iv);
  c.setAAD(Buffer.from(identity.publicKey + peer));
  const ct = Buffer.concat([c.update(plain), c.final()]);
  return { iv: iv.toString('hex'), ct: ct.toString('hex'), tag: c.getAuthTag().toString('hex') };
}

function decryptShare(identity: Identity, peer: string, box: unknown): Uint8Array {
  const b = (box ?? {}) as Record<string, unknown>;
  const d = createDecipheriv('aes-256-gcm', shareKey(identity, peer), parseHex(b.iv, 12, 'iv'));
  d.setAAD(Buffer.from(peer + identity.publicKey));
  d.setAuthTag(parseHex(b.tag, 16, 'tag'));
  return new Uint8Array(Buffer.concat([d.update(parseHex(b.ct, 32, 'ct')), d.final()]));
}

function round1ToJson(p: DKG_Round1): Json {
  return {
    identifier: p.identifier,
    commitment: p.commitment.map(bytesToHex),
    proofOfKnowledge: bytesToHex(p.proofOfKnowledge),
  };
}

function round1FromJson(raw: unknown, t: number): DKG_Round1 {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.identifier !== 'string' || !Array.isArray(r.commitment) || r.commitment.length !== t)
    throw new ProtocolError('malformed', 'bad DKG round-1 package');
  return {
    identifier: r.identifier,
    commitment: r.commitment.map((c) => parseHex(c, 33, 'DKG commitment')),
    proofOfKnowledge: parseHex(r.proofOfKnowledge, 64, 'proof of knowledge'),
  };
}

export class GuardianNode {
  readonly identity: Identity;
  readonly store: GuardianStore;
  private set?: GuardianSet;
  private share?: FrostSecret;
  private pub?: FrostPublic;
  private roster?: GuardianSetBody;
  private dkg?: DkgState;
  /** round-1 nonces, in memory only: a restart loses them for good (store.abandonIssuedNonces) */
  private readonly nonces = new Map<string, { nonces: Nonces; at: number }>();
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
      this.roster = parseSetBody(opts.roster);
      const me = this.roster.members[opts.id - 1];
      if (!me || me.identityKey !== this.identity.publicKey)
        throw new Error(`guardian ${opts.id} is not in the roster with this identity key`);
    } else {
      throw new Error('no guardian set and share in the directory, and no roster to run a DKG');
    }
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
    return (this.set ?? this.roster)!.members;
  }

  private get body(): GuardianSetBody {
    return (this.set ?? this.roster)!;
  }

  private knownSenders(): Set<string> {
    const b = this.body;
    return new Set([
      ...b.members.map((m) => m.identityKey),
      ...b.coordinators.map((c) => c.identityKey),
    ]);
  }

  health(): Record<string, unknown> {
    return {
      id: this.opts.id,
      name: this.members[this.opts.id - 1]?.name,
      state: this.set ? 'ready' : 'dkg',
      setVersion: this.body.version,
      groupKey: this.set?.groupKey ?? null,
      identityKey: this.identity.publicKey,
      version: NODE_VERSION,
      uptimeMs: Date.now() - this.startedAt,
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
    const coordinatorOnly = () => {
      if (!fromCoordinator)
        throw new ProtocolError('not-allowed', `${p.type} is for the coordinator only`, 403);
    };
    switch (p.type) {
      case 'dkg/round1':
        coordinatorOnly();
        return this.dkgRound1();
      case 'dkg/round2':
        coordinatorOnly();
        return this.dkgRound2(p.body);
      case 'dkg/share':
        if (!peer) throw new ProtocolError('not-allowed', 'dkg/share comes from a guardian', 403);
        return this.dkgReceive(peer, p.body);
      case 'dkg/finish':
        coordinatorOnly();
        return this.dkgFinish();
      case 'set/sign':
        coordinatorOnly();
        return this.setSign(p.body);
      case 'set/install':
        coordinatorOnly();
        return this.setInstall(p.body);
      case 'sign/propose':
        coordinatorOnly();
        return this.propose(p.body);
      case 'sign/commit':
        coordinatorOnly();
        return this.commit(p.body);
      case 'sign/share':
        coordinatorOnly();
        return this.signShare(p.body);
      default:
        throw new ProtocolError('malformed', `unknown message type ${p.type.slice(0, 40)}`);
    }
  }

  // ---- distributed key generation (three rounds) ----

  private needDkg(): GuardianSetBody {
    if (this.set || !this.roster)
      throw new ProtocolError('not-allowed', 'this guardian already has a share');
    return this.roster;
  }

  private dkgRound1(): unknown {
    const roster = this.needDkg();
    if (!this.dkg) {
      const r1 = frost.DKG.round1(frostIdentifier(this.opts.id), { min: roster.t, max: roster.n });
      this.dkg = { secret: r1.secret, round1: [r1.public], received: new Map() };
    }
    return { package: round1ToJson(this.dkg.round1[0]!) };
  }

  private async dkgRound2(body: unknown): Promise<unknown> {
    const roster = this.needDkg();
    const dkg = this.dkg;
    if (!dkg) throw new ProtocolError('not-ready', 'dkg/round1 first');
    const wires = (body as { round1?: unknown })?.round1;
    const others = roster.members.filter((m) => m.id !== this.opts.id);
    if (!Array.isArray(wires) || wires.length !== others.length)
      throw new ProtocolError('malformed', 'dkg/round2 needs the n-1 other round-1 packages');
    // Each package must carry its guardian's own signature: a coordinator cannot invent one.
    const packages = others.map((m, i) => {
      const payload = checkReply(wires[i] as Wire, m.identityKey);
      if (payload.type !== 'dkg/round1')
        throw new ProtocolError('malformed', 'not a round-1 package');
      const pkg = round1FromJson((payload.body as { package?: unknown })?.package, roster.t);
      if (pkg.identifier !== frostIdentifier(m.id))
        throw new ProtocolError(
          'malformed',
          `round-1 package of guardian ${m.id} names another id`,
        );
      return pkg;
    });
    const toSend = frost.DKG.round2(dkg.secret, packages);
    dkg.round1 = [dkg.round1[0]!, ...packages];
    await Promise.all(
      others.map((m) =>
        callParty({
          url: m.url,
          identity: this.identity,
          to: m.identityKey,
          setVersion: roster.version,
          type: 'dkg/share',
          body: {
            box: encryptShare(
              this.identity,
              m.identityKey,
              toSend[frostIdentifier(m.id)]!.signingShare,
            ),
          },
        }),
      ),
    );
    return { sent: others.length };
  }

  private dkgReceive(peer: Member, body: unknown): unknown {
    this.needDkg();
    if (!this.dkg) throw new ProtocolError('not-ready', 'dkg/round1 first');
    const share = decryptShare(this.identity, peer.identityKey, (body as { box?: unknown })?.box);
    this.dkg.received.set(frostIdentifier(peer.id), share);
    return { received: true };
  }

  private dkgFinish(): unknown {
    const roster = this.needDkg();
    const dkg = this.dkg;
    if (!dkg || dkg.round1.length !== roster.n || dkg.received.size !== roster.n - 1)
      throw new ProtocolError('not-ready', 'DKG rounds 1 and 2 are not complete');
    if (!dkg.result) {
      const round2 = [...dkg.received].map(([identifier, signingShare]) => ({
        identifier,
        signingShare,
      }));
      dkg.result = frost.DKG.round3(dkg.secret, dkg.round1.slice(1), round2);
    }
    const pub = publicToJson(dkg.result.public);
    return { frost: pub, groupKey: groupKeyXOnly(pub) };
  }

  private ownDkgSetBody(raw: unknown): GuardianSetBody {
    const roster = this.needDkg();
    const result = this.dkg?.result;
    if (!result) throw new ProtocolError('not-ready', 'dkg/finish first');
    const body = parseSetBody(raw);
    const pub = publicToJson(result.public);
    const expected: GuardianSetBody = {
      ...roster,
      version: body.version,
      frost: pub,
      groupKey: groupKeyXOnly(pub),
    };
    if (
      body.version < 1 ||
      canonicalJson(setBodyJson(body)) !== canonicalJson(setBodyJson(expected))
    )
      throw new ProtocolError('refused', 'set differs from this guardian’s roster or DKG result');
    return body;
  }

  private setSign(body: unknown): unknown {
    const set = this.ownDkgSetBody((body as { set?: unknown })?.set);
    return { signature: signSet(set, this.identity.secretKey) };
  }

  private setInstall(body: unknown): unknown {
    const raw = (body as { set?: unknown })?.set;
    this.ownDkgSetBody(raw);
    let set: GuardianSet;
    try {
      set = verifySet(raw);
    } catch (e) {
      throw new ProtocolError('refused', (e as Error).message);
    }
    const result = this.dkg!.result!;
    const p = paths(this.opts.dir);
    writeShareFile(p.share, {
      guardianId: this.opts.id,
      secret: result.secret,
      groupKey: set.groupKey!,
    });
    writeFileSync(p.set, JSON.stringify(set, null, 2) + '\n');
    this.set = set;
    this.installShare(result.secret, this.opts.id, set.groupKey!);
    frost.DKG.clean(this.dkg!.secret);
    this.dkg = undefined;
    this.roster = undefined;
    this.log({ event: 'dkg-complete', groupKey: set.groupKey });
    return { installed: true };
  }

  // ---- signing (two rounds after each guardian's own decision) ----

  private needReady(): { set: GuardianSet; share: FrostSecret; pub: FrostPublic } {
    if (!this.set || !this.share || !this.pub)
      throw new ProtocolError('not-ready', 'this guardian has no share yet');
    return { set: this.set, share: this.share, pub: this.pub };
  }

  private parseSession(body: unknown): { sessionId: string; attempt: number } {
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b.sessionId !== 'string' || !SESSION_ID.test(b.sessionId))
      throw new ProtocolError('malformed', 'sessionId must be 32 bytes of hex');
    const attempt = b.attempt ?? 0;
    if (
      typeof attempt !== 'number' ||
      !Number.isSafeInteger(attempt) ||
      attempt < 0 ||
      attempt > 1000
    )
      throw new ProtocolError('malformed', 'attempt must be 0..1000');
    return { sessionId: b.sessionId, attempt };
  }

  private async propose(body: unknown): Promise<unknown> {
    this.needReady();
    const { sessionId } = this.parseSession(body);
    const message = parseHex((body as { message?: unknown }).message, 32, 'message');
    const messageHex = bytesToHex(message);
    const earlier = this.store.session(sessionId);
    if (earlier) {
      if (earlier.message !== messageHex)
        throw new ProtocolError('refused', 'session id already used for another message', 409);
      return { approved: earlier.approved === 1, reason: earlier.reason };
    }
    let decision: Decision;
    try {
      let timer: NodeJS.Timeout | undefined;
      decision = await Promise.race([
        Promise.resolve(
          this.opts.validate({
            sessionId,
            message,
            context: (body as { context?: unknown }).context,
          }),
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), VALIDATE_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    } catch (e) {
      decision = { approve: false, reason: `validation failed: ${(e as Error).message}` };
    }
    const row = this.store.recordDecision(
      sessionId,
      messageHex,
      decision.approve,
      decision.approve ? null : decision.reason,
    );
    this.log({ event: 'decision', sessionId, approved: row.approved === 1, reason: row.reason });
    return { approved: row.approved === 1, reason: row.reason };
  }

  private approvedSession(sessionId: string) {
    const session = this.store.session(sessionId);
    if (!session) throw new ProtocolError('unknown-session', 'no such signing session', 404);
    if (session.approved !== 1)
      throw new ProtocolError(
        'refused',
        `this guardian refused the request: ${session.reason}`,
        403,
      );
    return session;
  }

  private commit(body: unknown): unknown {
    const { share } = this.needReady();
    const { sessionId, attempt } = this.parseSession(body);
    this.approvedSession(sessionId);
    if (this.store.nonce(sessionId, attempt))
      throw new ProtocolError(
        'nonce-unavailable',
        'this attempt already has a nonce; start a new attempt',
        409,
      );
    this.expireNonces();
    if (this.nonces.size >= MAX_OPEN_NONCES)
      throw new ProtocolError(
        'not-ready',
        'too many signing attempts open; try again shortly',
        503,
      );
    const gen = frost.commit(share);
    const c = commitmentsToJson(gen.commitments);
    // Durable before the commitment leaves: a restart marks it abandoned, never signs with it again.
    if (!this.store.recordIssuedNonce(sessionId, attempt, c.hiding, c.binding))
      throw new ProtocolError('nonce-unavailable', 'this attempt already has a nonce', 409);
    this.nonces.set(`${sessionId}:${attempt}`, { nonces: gen.nonces, at: Date.now() });
    return { commitments: this.opts.tamperCommitments ? this.opts.tamperCommitments(c) : c };
  }

  /** An attempt left open too long is abandoned: its nonce is dropped and its row says so. */
  private expireNonces(): void {
    const cutoff = Date.now() - NONCE_TTL_MS;
    for (const [key, open] of this.nonces) {
      if (open.at >= cutoff) continue;
      this.nonces.delete(key);
      const [sessionId, attempt] = key.split(':');
      this.store.abandonNonce(sessionId!, Number(attempt));
    }
  }

  private signShare(body: unknown): unknown {
    const { share, pub, set } = this.needReady();
    const { sessionId, attempt } = this.parseSession(body);
    const session = this.approvedSession(sessionId);
    const list = (body as { commitments?: unknown }).commitments;
    if (!Array.isArray(list) || list.length !== set.t)
      throw new ProtocolError('malformed', `signing needs exactly ${set.t} commitments`);
    const commitments = list.map((c) => {
      try {
        return commitmentsFromJson(c);
      } catch (e) {
        throw new ProtocolError('malformed', (e as Error).message);
      }
    });
    const ids = new Set(commitments.map((c) => c.identifier));
    const allowed = new Set(set.members.map((m) => frostIdentifier(m.id)));
    if (ids.size !== commitments.length || [...ids].some((i) => !allowed.has(i)))
      throw new ProtocolError(
        'malformed',
        'commitments must come from distinct guardians of the set',
      );
    const mine = commitments.find((c) => c.identifier === share.identifier);
    const row = this.store.nonce(sessionId, attempt);
    if (
      !mine ||
      !row ||
      bytesToHex(mine.hiding) !== row.hiding ||
      bytesToHex(mine.binding) !== row.binding
    )
      throw new ProtocolError(
        'refused',
        'the list does not carry this guardian’s commitment for this attempt',
      );
    const key = `${sessionId}:${attempt}`;
    this.expireNonces();
    const nonces = this.nonces.get(key)?.nonces;
    if (!nonces || row.status !== 'issued')
      throw new ProtocolError(
        'nonce-unavailable',
        `nonce for this attempt is ${row.status === 'issued' ? 'lost (restart)' : row.status}`,
        409,
      );
    // Spent on disk before the share exists: a crash from here on can only lose the share.
    if (!this.store.spendNonce(sessionId, attempt))
      throw new ProtocolError('nonce-unavailable', 'nonce already spent', 409);
    this.nonces.delete(key);
    let sigShare: Uint8Array = frost.signShare(
      share,
      pub,
      nonces,
      commitments,
      parseHex(session.message, 32),
    );
    if (this.opts.tamperShare) sigShare = this.opts.tamperShare(sigShare);
    this.log({ event: 'share', sessionId, attempt });
    return { share: bytesToHex(sigShare) };
  }

  // ---- HTTP ----

  async listen(): Promise<number> {
    const server = createServer((req, res) => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'GET' && req.url === '/v1/health') return send(200, this.health());
      if (req.method === 'GET' && req.url === '/v1/set') {
        if (!this.set) return send(404, { error: { code: 'not-ready', message: 'no set yet' } });
        return send(200, this.set);
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
    });
    server.requestTimeout = 10_000;
    server.headersTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort(), this.opts.host ?? '127.0.0.1', () => resolve());
    });
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : this.listenPort();
  }

  private listenPort(): number {
    if (this.opts.port !== undefined) return this.opts.port;
    const url = new URL(this.members[this.opts.id - 1]!.url);
    return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.store.close();
  }
}
