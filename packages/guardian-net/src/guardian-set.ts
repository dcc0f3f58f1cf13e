// The guardian set: one signed, versioned document naming every guardian (id, identity key, URL),
// the coordinators allowed to ask for signatures, t and n, and the FROST public package (group key
// and each guardian's verifying share). Every member signs it, so anyone can fetch it from any
// guardian and check it; nothing in it is secret.
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
}

export interface GuardianSet extends GuardianSetBody {
  /** member id (decimal string) to BIP-340 signature over the body, hex */
  signatures: Record<string, string>;
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

export function setBodyJson(body: GuardianSetBody): Json {
  const { signatures: _s, ...rest } = body as GuardianSet;
  return JSON.parse(JSON.stringify(rest)) as Json;
}

export function setDigest(body: GuardianSetBody): Uint8Array {
  return taggedDigest(SET_TAG, utf8ToBytes(canonicalJson(setBodyJson(body))));
}

export function signSet(body: GuardianSetBody, secretKey: Uint8Array): string {
  return bytesToHex(schnorr.sign(setDigest(body), secretKey));
}

/** The FROST package is self-consistent: each verifying share is the VSS commitment at its id. */
function checkFrostPublic(body: GuardianSetBody): void {
  const f = body.frost!;
  const Point = secp256k1.Point;
  const commitments = f.commitments.map((c) => Point.fromHex(c));
  const groupPoint = commitments[0]!;
  if (bytesToHex(groupPoint.toBytes(true).subarray(1)) !== body.groupKey)
    fail('groupKey is not the first commitment');
  for (const m of body.members) {
    const x = BigInt(m.id);
    let acc = Point.ZERO;
    let power = 1n;
    for (const c of commitments) {
      acc = acc.add(c.multiply(power));
      power = (power * x) % Point.Fn.ORDER;
    }
    if (bytesToHex(acc.toBytes(true)) !== f.verifyingShares[frostIdentifier(m.id)])
      fail(`verifying share of guardian ${m.id} does not match the commitments`);
  }
}

/**
 * A published set, from untrusted JSON: structure, FROST consistency and a valid signature from
 * every member's identity key. `pinnedGroupKey`, when given, must match (a client pins the key its
 * vaults commit to, so a set signed by strangers is still refused).
 */
export function verifySet(raw: unknown, pinnedGroupKey?: string): GuardianSet {
  const body = parseSetBody(raw);
  if (body.version < 1 || !body.frost) fail('a published set has a version and a group key');
  checkFrostPublic(body);
  if (pinnedGroupKey !== undefined && body.groupKey !== pinnedGroupKey)
    fail('guardian set is for another group key');
  const sigs = ((raw as Record<string, unknown>).signatures ?? {}) as Record<string, unknown>;
  const digest = setDigest(body);
  const signatures: Record<string, string> = {};
  for (const m of body.members) {
    const sig = sigs[String(m.id)];
    let ok = false;
    try {
      ok = schnorr.verify(parseHex(sig, 64), digest, parseHex(m.identityKey, 32));
    } catch {
      ok = false;
    }
    if (!ok) fail(`guardian set lacks a valid signature from guardian ${m.id}`);
    signatures[String(m.id)] = sig as string;
  }
  return { ...body, signatures };
}
