// The guardian set: one signed, versioned document naming every guardian (id, identity key, URL),
// the coordinators allowed to ask for signatures, t and n, and the FROST public package (group key
// and each guardian's verifying share). At least t members sign it (every member, when it is a
// DKG's new key), so anyone can fetch it from any guardian and check it; nothing in it is secret.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import {
  canonicalJson,
  parseHex,
  taggedDigest,
  utf8ToBytes,
  bytesToHex,
  type Json,
} from './canonical';
import { frostIdentifier, type FrostPublicJson } from './frost';

export const MAX_GUARDIANS = 15;
const SET_TAG = 'unit/guardian-set';
/** What a member of set v signs to hand over to set v+1 (a tag of its own: never a set signature). */
const HANDOVER_TAG = 'unit/guardian-handover';

export interface Member {
  id: number;
  name: string;
  /** BIP-340 x-only identity key, hex */
  identityKey: string;
  /** base URL of the guardian's HTTP endpoint */
  url: string;
}

export interface Coordinator {
  name: string;
  identityKey: string;
}

export interface GuardianSetBody {
  kind: 'unit/guardian-set';
  version: number;
  t: number;
  n: number;
  members: Member[];
  coordinators: Coordinator[];
  /** absent in a roster (before the DKG), present in a published set */
  frost?: FrostPublicJson;
  /** x-only group key, hex: the `guard_pubkey` of the vault leaves */
  groupKey?: string;
  /** from version 2 on: the set this one replaces (see `verifyHandover`) */
  previous?: PreviousSet;
}

/** The set a rotation starts from, named inside the next set's body, so every signature binds it. */
export interface PreviousSet {
  version: number;
  /** its x-only group key, hex */
  groupKey: string;
  /** `setDigest` of its body, hex */
  digest: string;
}

export interface GuardianSet extends GuardianSetBody {
  /** member id (decimal string) to BIP-340 signature over the body, hex */
  signatures: Record<string, string>;
  /**
   * From version 2 on: id of a member of the previous set (decimal string) to its BIP-340
   * signature over `handoverDigest(body)`; at least the previous set's t of them.
   */
  handover?: Record<string, string>;
}

export class GuardianSetError extends Error {}

function fail(message: string): never {
  throw new GuardianSetError(message);
}

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

function checkKey(v: unknown, what: string): string {
  try {
    const bytes = parseHex(v, 32, what);
    schnorr.utils.lift_x(BigInt('0x' + bytesToHex(bytes)));
  } catch {
    fail(`${what} is not a BIP-340 public key`);
  }
  return v as string;
}

/** Structure of a roster or set, from untrusted JSON. Cryptographic checks are in `verifySet`. */
export function parseSetBody(raw: unknown): GuardianSetBody {
  if (typeof raw !== 'object' || raw === null) fail('guardian set is not an object');
  const r = raw as Record<string, unknown>;
  if (r.kind !== 'unit/guardian-set') fail('not a guardian set');
  if (!isInt(r.version, 0, 2 ** 31)) fail('bad version');
  if (!isInt(r.n, 2, MAX_GUARDIANS)) fail(`n must be 2..${MAX_GUARDIANS}`);
  if (!isInt(r.t, 2, r.n)) fail('t must be 2..n');
  if (!Array.isArray(r.members) || r.members.length !== r.n) fail('members must list n guardians');
  const seenKeys = new Set<string>();
  const members: Member[] = r.members.map((m: unknown, i: number) => {
    const mm = (m ?? {}) as Record<string, unknown>;
    if (mm.id !== i + 1) fail('member ids must be 1..n in order');
    if (typeof mm.name !== 'string' || !/^[\w .-]{1,40}$/.test(mm.name)) fail('bad member name');
    const identityKey = checkKey(mm.identityKey, `member ${i + 1} identityKey`);
    if (typeof mm.url !== 'string' || !/^https?:\/\/[^\s]{1,200}$/.test(mm.url))
      fail('bad member url');
    if (seenKeys.has(identityKey)) fail('identity keys must be distinct');
    seenKeys.add(identityKey);
    return { id: i + 1, name: mm.name, identityKey, url: mm.url.replace(/\/$/, '') };
  });
  if (!Array.isArray(r.coordinators) || r.coordinators.length > 8) fail('bad coordinators');
  const coordinators: Coordinator[] = r.coordinators.map((c: unknown) => {
    const cc = (c ?? {}) as Record<string, unknown>;
    if (typeof cc.name !== 'string' || !/^[\w .-]{1,40}$/.test(cc.name))
      fail('bad coordinator name');
    const identityKey = checkKey(cc.identityKey, 'coordinator identityKey');
    if (seenKeys.has(identityKey)) fail('identity keys must be distinct');
    seenKeys.add(identityKey);
    return { name: cc.name, identityKey };
  });
  const body: GuardianSetBody = {
    kind: 'unit/guardian-set',
    version: r.version,
    t: r.t,
    n: r.n,
    members,
    coordinators,
  };
  if (r.version >= 2 || r.previous !== undefined)
    body.previous = parsePrevious(r.previous, r.version);
  if (r.frost !== undefined || r.groupKey !== undefined) {
    const f = (r.frost ?? {}) as Record<string, unknown>;
    if (!Array.isArray(f.commitments) || f.commitments.length !== r.t)
      fail('frost.commitments must have t points');
    const commitments = f.commitments.map((c: unknown) =>
      bytesToHex(parseHex(c, 33, 'commitment')),
    );
    const vs = (f.verifyingShares ?? {}) as Record<string, unknown>;
    const verifyingShares: Record<string, string> = {};
    for (const m of members) {
      const fid = frostIdentifier(m.id);
      verifyingShares[fid] = bytesToHex(parseHex(vs[fid], 33, 'verifying share'));
    }
    if (Object.keys(vs).length !== members.length) fail('verifyingShares must list exactly n');
    body.frost = { commitments, verifyingShares };
    body.groupKey = checkKey(r.groupKey, 'groupKey');
  }
  return body;
}

/** A set of version 2 or later names the set of the version before it; versions 0 and 1 do not. */
function parsePrevious(raw: unknown, version: number): PreviousSet {
  if (version < 2) fail('only a set of version 2 or later names a previous set');
  const p = (raw ?? {}) as Record<string, unknown>;
  if (p.version !== version - 1) fail(`previous must name the set of version ${version - 1}`);
  return {
    version: version - 1,
    groupKey: checkKey(p.groupKey, 'previous groupKey'),
    digest: bytesToHex(parseHex(p.digest, 32, 'previous digest')),
  };
}

export function setBodyJson(body: GuardianSetBody): Json {
  const { signatures: _s, handover: _h, ...rest } = body as GuardianSet;
  return JSON.parse(JSON.stringify(rest)) as Json;
}

export function setDigest(body: GuardianSetBody): Uint8Array {
  return taggedDigest(SET_TAG, utf8ToBytes(canonicalJson(setBodyJson(body))));
}

export function signSet(body: GuardianSetBody, secretKey: Uint8Array): string {
  return bytesToHex(schnorr.sign(setDigest(body), secretKey));
}

/**
 * What a member of the previous set signs to hand over: the tagged hash of the next set's whole
 * body (members, t, n, FROST package, group key and `previous`: the version, group key and digest
 * of the set it replaces), under `unit/guardian-handover`.
 */
export function handoverDigest(body: GuardianSetBody): Uint8Array {
  return taggedDigest(HANDOVER_TAG, utf8ToBytes(canonicalJson(setBodyJson(body))));
}

export function signHandover(body: GuardianSetBody, secretKey: Uint8Array): string {
  return bytesToHex(schnorr.sign(handoverDigest(body), secretKey));
}

/** `previous` as the next set's body names it. */
export function previousOf(set: GuardianSet): PreviousSet {
  return { version: set.version, groupKey: set.groupKey!, digest: bytesToHex(setDigest(set)) };
}

/** The FROST package is self-consistent: each verifying share is the VSS commitment at its id. */
function checkFrostPublic(body: GuardianSetBody): void {
  const f = body.frost!;
  const Point = secp256k1.Point;
  const commitments = f.commitments.map((c) => Point.fromHex(c));
  const groupPoint = commitments[0]!;
  if (bytesToHex(groupPoint.toBytes(true).subarray(1)) !== body.groupKey)
    fail('groupKey is not the first commitment');
  // Every input is public (the commitments, small powers of the id): a variable-time product
  // gives the same point without the constant-time ladder each verification of a set paid n×t times.
  for (const m of body.members) {
    const x = BigInt(m.id);
    let acc = Point.ZERO;
    let power = 1n;
    for (const c of commitments) {
      acc = acc.add(c.multiplyUnsafe(power));
      power = (power * x) % Point.Fn.ORDER;
    }
    if (bytesToHex(acc.toBytes(true)) !== f.verifyingShares[frostIdentifier(m.id)])
      fail(`verifying share of guardian ${m.id} does not match the commitments`);
  }
}

export interface VerifyOptions {
  /** the set's own group key must be this one */
  pinnedGroupKey?: string;
  /** the set of the version before (checked again here): the set must carry its valid handover */
  previous?: unknown;
  /**
   * Every member's signature, not t of them: a DKG's certificate (a member installs a new key only
   * when every member computed the same one).
   */
  everyMember?: boolean;
}

function parseSignatures(raw: unknown, what: string): Record<string, unknown> {
  const sigs = (raw ?? {}) as Record<string, unknown>;
  if (typeof sigs !== 'object' || Object.keys(sigs).length > MAX_GUARDIANS) fail(`bad ${what}`);
  return sigs;
}

function validSignature(sig: unknown, digest: Uint8Array, key: string): boolean {
  try {
    return schnorr.verify(parseHex(sig, 64), digest, parseHex(key, 32));
  } catch {
    return false;
  }
}

/**
 * The members' signatures on a set: at least t, each a valid one by the member it names (with
 * `everyMember`, all n). An entry for no member or with a bad signature refuses the set, so nobody
 * pads a set with signatures that do not count.
 */
function memberSignatures(body: GuardianSetBody, raw: unknown, everyMember: boolean) {
  const sigs = parseSignatures(raw, 'signatures');
  const digest = setDigest(body);
  const signatures: Record<string, string> = {};
  for (const [id, sig] of Object.entries(sigs)) {
    const m = /^[1-9][0-9]?$/.test(id) ? body.members[Number(id) - 1] : undefined;
    if (!m) fail(`guardian set carries a signature of ${id.slice(0, 8)}, no member`);
    if (!validSignature(sig, digest, m.identityKey))
      fail(`guardian set carries a bad signature from guardian ${m.id}`);
    signatures[id] = sig as string;
  }
  const need = everyMember ? body.n : body.t;
  if (Object.keys(signatures).length < need) {
    const missing = body.members.filter((m) => !(String(m.id) in signatures)).map((m) => m.id);
    fail(
      `guardian set has ${Object.keys(signatures).length} of the ${need} member signatures it needs: none from guardian ${missing.join(', ')}`,
    );
  }
  return signatures;
}

/**
 * A published set, from untrusted JSON: structure, FROST consistency and valid signatures from at
 * least t members' identity keys (every member's with `everyMember`). `pinnedGroupKey`, when
 * given, must match (a client pins the key its vaults commit to, so a set signed by strangers is
 * still refused). With `previous`, the set must also carry the previous set's handover
 * (`verifyHandover`). A string is a pinned group key.
 */
export function verifySet(raw: unknown, options?: string | VerifyOptions): GuardianSet {
  const o: VerifyOptions =
    typeof options === 'string' ? { pinnedGroupKey: options } : (options ?? {});
  const body = parseSetBody(raw);
  if (body.version < 1 || !body.frost) fail('a published set has a version and a group key');
  checkFrostPublic(body);
  if (o.pinnedGroupKey !== undefined && body.groupKey !== o.pinnedGroupKey)
    fail('guardian set is for another group key');
  const r = raw as Record<string, unknown>;
  const signatures = memberSignatures(body, r.signatures, o.everyMember === true);
  const set: GuardianSet = { ...body, signatures };
  if (r.handover !== undefined) {
    const handover = parseSignatures(r.handover, 'handover');
    set.handover = {};
    for (const [id, sig] of Object.entries(handover))
      set.handover[id] = bytesToHex(parseHex(sig, 64, 'handover signature'));
  }
  if (o.previous !== undefined) verifyHandover(set, verifySet(o.previous));
  return set;
}

/**
 * The next set carries a valid handover from `previous`: it names `previous` (version, group key,
 * digest) and at least `previous.t` distinct members of `previous` signed `handoverDigest(next)`
 * with their identity keys. Any other signature in it (a stranger's, a bad one) refuses the set.
 */
export function verifyHandover(next: GuardianSet, previous: GuardianSet): void {
  const named = next.previous;
  if (!named) fail(`guardian set version ${next.version} names no previous set`);
  const expected = previousOf(previous);
  if (named.version !== expected.version || named.groupKey !== expected.groupKey)
    fail(`guardian set version ${next.version} does not follow set version ${previous.version}`);
  if (named.digest !== expected.digest)
    fail(`guardian set version ${next.version} was made from another set ${previous.version}`);
  const digest = handoverDigest(next);
  const entries = Object.entries(next.handover ?? {});
  for (const [id, sig] of entries) {
    const member = /^[1-9][0-9]?$/.test(id) ? previous.members[Number(id) - 1] : undefined;
    if (!member) fail(`handover names ${id.slice(0, 8)}, no guardian of set ${previous.version}`);
    if (!validSignature(sig, digest, member.identityKey))
      fail(`handover signature of guardian ${id} of set ${previous.version} does not verify`);
  }
  if (entries.length < previous.t)
    fail(
      `handover carries ${entries.length} of the ${previous.t} signatures of set ${previous.version} it needs`,
    );
}

/**
 * What a client that pinned a group key accepts: `sets[0]` has that key, and each later set
 * carries the handover of the one before it. Returns the last (newest) set.
 */
export function verifySetChain(pinnedGroupKey: string, sets: unknown[]): GuardianSet {
  if (sets.length === 0) fail('no guardian set given');
  let current = verifySet(sets[0], pinnedGroupKey);
  for (const raw of sets.slice(1)) current = verifySet(raw, { previous: current });
  return current;
}
