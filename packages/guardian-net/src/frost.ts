// FROST (RFC 9591, the secp256k1 Taproot suite) as the guardians use it: noble's `schnorr_FROST`
// does the cryptography; this module only maps guardian ids to FROST identifiers, moves packages to
// and from JSON, and keeps a guardian's share file.
import { schnorr_FROST } from '@noble/curves/secp256k1.js';
import type { FrostPublic, FrostSecret, NonceCommitments } from '@noble/curves/abstract/frost.js';
import { bytesToHex, parseHex } from './canonical';
import { readSecretFile, writeSecretFile } from './secret-file';

/** A group's public FROST data as the guardian set carries it. */
export interface FrostPublicJson {
  /** VSS commitments, compressed points, hex; commitments[0] is the group key */
  commitments: string[];
  /** FROST identifier (hex) to compressed verifying-share point (hex) */
  verifyingShares: Record<string, string>;
}

export const frost = schnorr_FROST;

/** Guardian `id` (1..n) is FROST identifier `id`: small, public and the same on every party. */
export function frostIdentifier(id: number): string {
  return frost.Identifier.fromNumber(id);
}

export function publicToJson(pub: FrostPublic): FrostPublicJson {
  return {
    commitments: pub.commitments.map(bytesToHex),
    verifyingShares: Object.fromEntries(
      Object.entries(pub.verifyingShares).map(([k, v]) => [k, bytesToHex(v)]),
    ),
  };
}

export function publicFromJson(json: FrostPublicJson, t: number, n: number): FrostPublic {
  return {
    signers: { min: t, max: n },
    commitments: json.commitments.map((c) => parseHex(c, 33, 'commitment')),
    verifyingShares: Object.fromEntries(
      Object.entries(json.verifyingShares).map(([k, v]) => [k, parseHex(v, 33, 'verifying share')]),
    ),
  };
}

/** The BIP-340 x-only group key: what goes in the vault leaves as `guard_pubkey`. */
export function groupKeyXOnly(pub: FrostPublic | FrostPublicJson): string {
  const first = pub.commitments[0];
  if (first === undefined) throw new Error('FROST package has no commitments');
  // The DKG output is Taproot-tweaked (noble's adjustDKG) and may have an odd y; BIP-340 keys are
  // x-only and the suite's signing negates as needed, so the x coordinate is the key.
  const hex = typeof first === 'string' ? first : bytesToHex(first);
  if (hex.length !== 66 || !/^0[23]/.test(hex))
    throw new Error('group key is not a compressed point');
  return hex.slice(2);
}

export interface CommitmentsJson {
  identifier: string;
  hiding: string;
  binding: string;
}

export function commitmentsToJson(c: NonceCommitments): CommitmentsJson {
  return { identifier: c.identifier, hiding: bytesToHex(c.hiding), binding: bytesToHex(c.binding) };
}

export function commitmentsFromJson(raw: unknown): NonceCommitments {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.identifier !== 'string' || !/^[0-9a-f]{64}$/.test(r.identifier))
    throw new Error('bad commitment identifier');
  return {
    identifier: r.identifier,
    hiding: parseHex(r.hiding, 33, 'hiding commitment'),
    binding: parseHex(r.binding, 33, 'binding commitment'),
  };
}

export interface ShareFile {
  guardianId: number;
  secret: FrostSecret;
  /** x-only group key, hex, to tie the share to its set */
  groupKey: string;
}

export function writeShareFile(path: string, share: ShareFile): void {
  writeSecretFile(
    path,
    JSON.stringify({
      guardianId: share.guardianId,
      identifier: share.secret.identifier,
      signingShare: bytesToHex(share.secret.signingShare),
      groupKey: share.groupKey,
    }) + '\n',
  );
}

/** Reads a share file, refusing one that others can read (see secret-file.ts). */
export function readShareFile(path: string): ShareFile {
  const raw = JSON.parse(readSecretFile(path)) as Record<string, unknown>;
  if (typeof raw.guardianId !== 'number' || typeof raw.identifier !== 'string')
    throw new Error(`share file ${path} is malformed`);
  return {
    guardianId: raw.guardianId,
    groupKey: bytesToHex(parseHex(raw.groupKey, 32, 'groupKey')),
    secret: {
      identifier: raw.identifier,
      signingShare: parseHex(raw.signingShare, 32, 'signingShare'),
    },
  };
}
