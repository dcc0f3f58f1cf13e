// A first DKG's polynomial drawn from the guardian's identity key (dkg-recovery.ts says why): a
// stream keyed by that key, the coordinator's session and the roster.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { canonicalJson, utf8ToBytes } from './canonical';
import { frost, frostIdentifier } from './frost';
import { setBodyJson, type GuardianSetBody } from './guardian-set';
import type { Identity } from './identity';

/**
 * The random stream a guardian draws its DKG polynomial and proof from: HMAC-SHA256 under its
 * identity secret key of a tag, the session, the roster and a counter. A fresh session (16 random
 * bytes from the coordinator) gives a fresh polynomial; the same session and roster, the same one.
 */
export function dkgRandom(identity: Identity, session: string, roster: GuardianSetBody) {
  const rosterBytes = utf8ToBytes(canonicalJson(setBodyJson(roster)));
  const seed = hmac(sha256, identity.secretKey, new Uint8Array([...utf8ToBytes(`unit/dkg-seed/v1/${session}/`), ...sha256(rosterBytes)])); // prettier-ignore
  let counter = 0;
  return (bytes = 32): Uint8Array => {
    const out = new Uint8Array(bytes);
    for (let off = 0; off < bytes; off += 32) {
      const block = hmac(sha256, seed, utf8ToBytes(`block/${counter++}`));
      out.set(block.subarray(0, Math.min(32, bytes - off)), off);
    }
    return out;
  };
}

/** The first DKG's round 1 of guardian `id`, drawn from its identity key (dkgRandom). */
export function seededRound1(
  identity: Identity,
  id: number,
  session: string,
  roster: GuardianSetBody,
) {
  const rng = dkgRandom(identity, session, roster);
  return frost.DKG.round1(frostIdentifier(id), { min: roster.t, max: roster.n }, undefined, rng);
}
