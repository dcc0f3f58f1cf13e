// What guardians sign and authenticate against docs/vectors/guardian-messages.json: sealing gives
// the recorded payload text and MAC, the recorded signatures verify under the real checks (and a
// changed payload does not), the digests are recomputed from their fields, and the file is what
// `npm run vectors` writes from today's code.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import file from '../../../docs/vectors/guardian-messages.json';
import vaultFile from '../../../docs/vectors/vault-scripts.json';
import { hexToBytes, taggedDigest, utf8ToBytes, canonicalJson, type Json } from '../src/canonical';
import { open, shareKey } from '../src/dkg-share-box';
import { openEnvelope, sealMessage, type Payload } from '../src/envelope';
import { handoverDigest, setDigest, type GuardianSetBody } from '../src/guardian-set';
import { deriveThresholdSecret, hash160, oracleHashDigest } from '../src/oracle/threshold-oracle';
import { pairwiseKey } from '../src/pairwise-mac';
import { priceDigest, signedPriceProblem } from '../src/price/signed-price';
import { quoteDigest, quoteSignedBy } from '../src/vault-policy/context';
import { guardianMessageVectors, type Party } from './vectors/messages';

const vectors = file as unknown as ReturnType<typeof guardianMessageVectors>;
const parties = vectors.parties as Record<string, Party>;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const secret = (p: Party) => new Uint8Array(hexToBytes(p.secretKey));

describe('docs/vectors/guardian-messages.json', () => {
  it('parties: each identity key is the BIP-340 key of its secret', () => {
    for (const p of Object.values(parties))
      expect(hex(schnorr.getPublicKey(secret(p)))).toBe(p.identityKey);
  });

  it.each(vectors.envelopes.map((e) => [e.name, e] as const))('%s', (_n, e) => {
    const from = parties[e.from]!;
    const to = parties[e.to]!;
    const fields = e.fields as Omit<Payload, 'v' | 'from' | 'to'>;
    const sealed = sealMessage(
      { ...fields, from: from.identityKey, to: to.identityKey },
      secret(from),
      e.auth,
    );
    expect(sealed.payload).toBe(e.payload);
    const wire =
      'sig' in e ? { payload: e.payload, sig: e.sig } : { payload: e.payload, mac: e.mac };
    if ('sig' in e) {
      expect(hex(taggedDigest(vectors.tags.message, utf8ToBytes(e.payload)))).toBe(e.digest);
    } else {
      expect(sealed.mac).toBe(e.mac);
      // Both ends of the pair derive the same key for this direction.
      expect(hex(pairwiseKey(secret(from), from.identityKey, to.identityKey))).toBe(e.macKey);
      expect(hex(pairwiseKey(secret(to), from.identityKey, to.identityKey))).toBe(e.macKey);
    }
    const opts = {
      self: to.identityKey,
      secretKey: secret(to),
      knownSenders: new Set([from.identityKey]),
      now: fields.ts,
    };
    const opened = openEnvelope(JSON.stringify(wire), opts);
    expect(opened.auth).toBe(e.auth);
    expect(opened.payload).toEqual({ v: 1, ...fields, from: from.identityKey, to: to.identityKey });
    const forged = { ...wire, payload: e.payload.replace('"setVersion":1', '"setVersion":2') };
    expect(() => openEnvelope(JSON.stringify(forged), opts)).toThrow(/does not verify/);
  });

  it("oracle quote: digest of its fields, the oracle's signature", () => {
    const { fields, digest, signature, signer } = vectors.quote;
    expect(hex(quoteDigest(fields))).toBe(digest);
    const oracleKey = parties[signer]!.identityKey;
    expect(quoteSignedBy(oracleKey, { ...fields, signature })).toBe(true);
    expect(quoteSignedBy(oracleKey, { ...fields, th: fields.th + 1, signature })).toBe(false);
  });

  it('signed price: digest of its fields, signature of its guardian', () => {
    const { fields, digest, sig, signer } = vectors.signedPrice;
    expect(hex(priceDigest(fields))).toBe(digest);
    const members = Object.entries(parties).map(([name, p]) => ({
      id: name === signer ? fields.guardian : 99,
      name,
      identityKey: p.identityKey,
      url: 'https://guardian.example',
    }));
    const set = { version: fields.setVersion, members } as unknown as GuardianSetBody;
    expect(signedPriceProblem(set, { ...fields, sig })).toBeNull();
    expect(signedPriceProblem(set, { ...fields, priceCents: fields.priceCents + 1, sig })).toBe(
      'price signature does not verify',
    );
  });

  it("each guardian's oracle derives the threshold secrets of vault-scripts.json", () => {
    for (const t of vaultFile.thresholds) {
      const secretOf = deriveThresholdSecret(
        hexToBytes(t.oracleSecret),
        Number(t.thCents),
        t.stamp,
      );
      expect(hex(secretOf)).toBe(t.secret);
      expect(hex(hash160(secretOf))).toBe(t.thresholdHash);
    }
  });

  it('oracle hash statement: digest of its fields, signature of its guardian', () => {
    const { fields, digest, sig, signer } = vectors.oracleHash;
    expect(hex(oracleHashDigest(fields))).toBe(digest);
    expect(
      schnorr.verify(hexToBytes(sig), hexToBytes(digest), hexToBytes(parties[signer]!.identityKey)),
    ).toBe(true);
  });

  it.each(vectors.sets.map((s) => [s.name, s] as const))('guardian set %s: digests', (_n, s) => {
    const body = s.body as unknown as GuardianSetBody;
    expect(canonicalJson(s.body as Json)).toBe(s.canonicalJson);
    expect(hex(setDigest(body))).toBe(s.setDigest);
    expect(hex(taggedDigest(vectors.tags.set, utf8ToBytes(s.canonicalJson)))).toBe(s.setDigest);
    expect(hex(handoverDigest(body))).toBe(s.handoverDigest);
    expect(
      schnorr.verify(
        hexToBytes(s.setSignatureOfGuardian1),
        hexToBytes(s.setDigest),
        hexToBytes(parties.guardian1!.identityKey),
      ),
    ).toBe(true);
  });

  it('DKG share box: both ends derive the pair’s session key, and the box opens to the share', () => {
    const { from, to, session, key, share, box } = vectors.dkgShareBox;
    const a = parties[from]!;
    const b = parties[to]!;
    const identity = (p: Party) => ({ publicKey: p.identityKey, secretKey: secret(p) });
    expect(hex(shareKey(identity(a), b.identityKey, session))).toBe(key);
    expect(hex(shareKey(identity(b), a.identityKey, session))).toBe(key);
    const opened = open(hexToBytes(key), a.identityKey, b.identityKey, box);
    expect(opened && hex(opened)).toBe(share);
    // Another session's key opens nothing.
    const other = shareKey(identity(a), b.identityKey, session.replace('0', 'f'));
    expect(open(other, a.identityKey, b.identityKey, box)).toBeNull();
  });

  it('is the file the generator writes from the current code (npm run vectors)', () => {
    expect(vectors).toEqual(guardianMessageVectors());
  });
});
