// Test vectors of what guardians sign and authenticate (docs/vectors/guardian-messages.json): the
// message envelope under a BIP-340 signature and under a pairwise MAC, a signed price, an oracle's
// threshold hash statement and the digests of a guardian set and of a handover. Secret keys are
// derived from fixed labels and published here: these are test identities, never real ones.
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  bytesToHex,
  canonicalJson,
  taggedDigest,
  utf8ToBytes,
  type Json,
} from '../../src/canonical';
import { createCipheriv } from 'node:crypto';
import { shareKey } from '../../src/dkg-share-box';
import { MESSAGE_TAG, sealMessage, type Payload } from '../../src/envelope';
import {
  handoverDigest,
  setBodyJson,
  setDigest,
  type GuardianSetBody,
} from '../../src/guardian-set';
import {
  ORACLE_HASH_TAG,
  oracleHashDigest,
  type OracleHashStatement,
} from '../../src/oracle/threshold-oracle';
import { MAC_TAG, pairwiseKey } from '../../src/pairwise-mac';
import { quoteDigest } from '../../src/vault-policy/context';
import { priceDigest, PRICE_TAG, type PriceFields } from '../../src/price/signed-price';

/** BIP-340 with all-zero auxiliary randomness: one signature per (key, digest), so the file is stable. */
const AUX = new Uint8Array(32);
export const signDigest = (digest: Uint8Array, secretKey: Uint8Array): string =>
  bytesToHex(schnorr.sign(digest, secretKey, AUX));

export interface Party {
  label: string;
  secretKey: string;
  identityKey: string;
}

export function party(label: string): Party {
  const secretKey = sha256(utf8ToBytes(`unit-vector/${label}`));
  return {
    label,
    secretKey: bytesToHex(secretKey),
    identityKey: bytesToHex(schnorr.getPublicKey(secretKey)),
  };
}

export const PARTIES = {
  oracle: party('oracle'),
  coordinator: party('coordinator'),
  guardian1: party('guardian-1'),
  guardian2: party('guardian-2'),
  guardian3: party('guardian-3'),
};

const secretOf = (p: Party): Uint8Array => new Uint8Array(Buffer.from(p.secretKey, 'hex'));

export interface EnvelopeInput {
  name: string;
  from: keyof typeof PARTIES;
  to: keyof typeof PARTIES;
  auth: 'sig' | 'mac';
  fields: Omit<Payload, 'v' | 'from' | 'to'>;
}

const ENVELOPES: EnvelopeInput[] = [
  {
    name: 'a signing request from the coordinator, signed (BIP-340)',
    from: 'coordinator',
    to: 'guardian1',
    auth: 'sig',
    fields: {
      type: 'sign/commit',
      setVersion: 1,
      ts: 1_750_000_000_000,
      nonce: '00112233445566778899aabbccddeeff',
      body: { sessionId: 'ab'.repeat(16), attempt: 0 },
    },
  },
  {
    name: 'a reply from a guardian, authenticated by the pair’s MAC',
    from: 'guardian1',
    to: 'coordinator',
    auth: 'mac',
    fields: {
      type: 'sign/commit',
      setVersion: 1,
      ts: 1_750_000_000_250,
      nonce: 'ffeeddccbbaa99887766554433221100',
      re: '00112233445566778899aabbccddeeff',
      body: { commitments: { hiding: '02'.padEnd(66, '1'), binding: '03'.padEnd(66, '2') } },
    },
  },
];

/** What sealMessage writes for one input; a signed one carries the zero-aux signature. */
export function envelopeVector(input: EnvelopeInput) {
  const from = PARTIES[input.from];
  const to = PARTIES[input.to];
  const wire = sealMessage(
    { ...input.fields, from: from.identityKey, to: to.identityKey },
    secretOf(from),
    input.auth,
  );
  const digest = taggedDigest(MESSAGE_TAG, utf8ToBytes(wire.payload));
  return {
    ...input,
    payload: wire.payload,
    ...(input.auth === 'sig'
      ? { digest: bytesToHex(digest), sig: signDigest(digest, secretOf(from)) }
      : {
          macKey: bytesToHex(pairwiseKey(secretOf(from), from.identityKey, to.identityKey)),
          mac: wire.mac!,
        }),
  };
}

/** An oracle quote: the price and its stamp, for the threshold and stamp the vault commits to. */
const QUOTE = { price_cents: 9_712_345, time: 1_750_000_000, th: 843_750, ts: 1_750_000_000 };

const PRICE: PriceFields = {
  guardian: 2,
  setVersion: 1,
  priceCents: 9_712_345,
  time: 1_750_000_000,
};

const ORACLE_HASH: Omit<OracleHashStatement, 'sig'> = {
  guardian: 3,
  setVersion: 1,
  th: 843_750,
  ts: 1_750_000_000,
  hash: bytesToHex(sha256(utf8ToBytes('unit-vector/threshold'))).slice(0, 40),
};

/** A set body without the FROST package (a roster): the digests hash whatever the body holds. */
function setBody(version: number, previous?: GuardianSetBody['previous']): GuardianSetBody {
  const members = [PARTIES.guardian1, PARTIES.guardian2, PARTIES.guardian3].map((p, i) => ({
    id: i + 1,
    name: p.label,
    identityKey: p.identityKey,
    url: `https://${p.label}.example:7443`,
  }));
  return {
    kind: 'unit/guardian-set',
    version,
    t: 2,
    n: 3,
    members,
    coordinators: [{ name: 'coordinator', identityKey: PARTIES.coordinator.identityKey }],
    groupKey: bytesToHex(sha256(utf8ToBytes(`unit-vector/group-key-${version}`))),
    ...(previous ? { previous } : {}),
  };
}

function setVectors() {
  const first = setBody(1);
  const firstDigest = setDigest(first);
  const next = setBody(2, {
    version: 1,
    groupKey: first.groupKey!,
    digest: bytesToHex(firstDigest),
  });
  const sets = [
    { name: 'version 1', body: first },
    { name: 'version 2, naming version 1', body: next },
  ];
  return sets.map(({ name, body }) => ({
    name,
    body: setBodyJson(body),
    canonicalJson: canonicalJson(setBodyJson(body) as Json),
    setDigest: bytesToHex(setDigest(body)),
    setSignatureOfGuardian1: signDigest(setDigest(body), secretOf(PARTIES.guardian1)),
    handoverDigest: bytesToHex(handoverDigest(body)),
  }));
}

/**
 * A DKG round-2 share sealed from guardian 1 to guardian 2: the pair's session key, and the box
 * sealed here with a fixed IV (the node draws a random one), AES-256-GCM with `from || to` as AAD.
 */
function dkgShareBox() {
  const from = PARTIES.guardian1;
  const to = PARTIES.guardian2;
  const session = '0123456789abcdef0123456789abcdef';
  const key = shareKey(
    { publicKey: from.identityKey, secretKey: secretOf(from) },
    to.identityKey,
    session,
  );
  const share = sha256(utf8ToBytes('unit-vector/dkg-share'));
  const iv = Buffer.alloc(12, 7);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(from.identityKey + to.identityKey));
  const ct = Buffer.concat([cipher.update(share), cipher.final()]);
  return {
    from: 'guardian1',
    to: 'guardian2',
    session,
    key: bytesToHex(key),
    share: bytesToHex(share),
    box: {
      iv: iv.toString('hex'),
      ct: ct.toString('hex'),
      tag: cipher.getAuthTag().toString('hex'),
    },
  };
}

export function guardianMessageVectors() {
  const priceDigestBytes = priceDigest(PRICE);
  const oracleDigest = oracleHashDigest(ORACLE_HASH);
  const quote = quoteDigest(QUOTE);
  return {
    about:
      'What the guardian network signs and authenticates (docs/guardian-network.md): message envelopes (payload text, tagged digest and BIP-340 signature, or the pair’s HKDF key and HMAC), a guardian’s signed price, an oracle’s threshold hash statement, and the digests of a guardian set and of a handover. Signatures use all-zero BIP-340 auxiliary randomness so they are reproducible; any valid BIP-340 signature over the same digest is equally valid.',
    tags: {
      message: MESSAGE_TAG,
      mac: MAC_TAG,
      price: PRICE_TAG,
      oracleHash: ORACLE_HASH_TAG,
      set: 'unit/guardian-set',
      handover: 'unit/guardian-handover',
    },
    parties: PARTIES,
    envelopes: ENVELOPES.map(envelopeVector),
    quote: {
      fields: QUOTE,
      signer: 'oracle',
      digest: bytesToHex(quote),
      signature: signDigest(quote, secretOf(PARTIES.oracle)),
    },
    signedPrice: {
      fields: PRICE,
      signer: 'guardian2',
      digest: bytesToHex(priceDigestBytes),
      sig: signDigest(priceDigestBytes, secretOf(PARTIES.guardian2)),
    },
    oracleHash: {
      fields: ORACLE_HASH,
      signer: 'guardian3',
      digest: bytesToHex(oracleDigest),
      sig: signDigest(oracleDigest, secretOf(PARTIES.guardian3)),
    },
    sets: setVectors(),
    dkgShareBox: dkgShareBox(),
  };
}
