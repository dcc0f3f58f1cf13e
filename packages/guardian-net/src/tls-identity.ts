// A party's TLS certificate, bound to its identity key: every link between parties is TLS 1.3, and
// each side proves it holds the identity key the published set lists for it. The certificate is
// self-signed (an ECDSA P-256 key made at each start, never written to disk) and carries, as a
// subject-alternative-name URI, the party's identity key and its BIP-340 signature over the
// certificate's public key (the SPKI). A peer accepts the certificate only when that signature
// verifies under the identity key it expected (the `to` of a call; a member or coordinator of the
// set for a server). The pin therefore lives where the identity key lives, in the set every member
// signed: the app server cannot swap a guardian's TLS key without that guardian's identity secret.
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API.
import type * as X509 from '@peculiar/x509';
import { schnorr } from '@noble/curves/secp256k1.js';
import { webcrypto, X509Certificate } from 'node:crypto';
import { bytesToHex, taggedDigest } from './canonical';
import type { Identity } from './identity';

export const TLS_BINDING_TAG = 'unit/guardian-tls-key';
const URI_PREFIX = 'unit-identity:';
/** A certificate is made at each start; a day is enough, and a stolen one soon stops working. */
const VALID_MS = 24 * 60 * 60 * 1000;
/** The start may be minutes behind a peer's clock; the certificate begins a little earlier. */
const BACKDATE_MS = 10 * 60 * 1000;

/** The key and certificate a party presents on every link, in PEM. */
export interface TlsCredentials {
  key: string;
  cert: string;
  /** the identity key the certificate is bound to */
  identityKey: string;
}

/** A refusal of a peer's certificate, with a sentence that says why. */
export class TlsPeerError extends Error {
  override name = 'TlsPeerError';
  constructor(
    readonly code: 'no-certificate' | 'malformed' | 'expired' | 'not-in-set' | 'bad-binding',
    message: string,
  ) {
    super(message);
  }
}

// The certificate library (and the reflect-metadata it needs) takes most of a second to load, and
// only a guardian or coordinator that makes its certificate needs it: loaded then, not with every
// import of this package.
let x509Module: Promise<typeof X509> | undefined;
const loadX509 = () =>
  (x509Module ??= import('reflect-metadata').then(() => import('@peculiar/x509')));

/** Makes a fresh TLS key and a certificate bound to `identity` (a few milliseconds). */
export async function makeTlsCredentials(
  identity: Identity,
  now = Date.now(),
): Promise<TlsCredentials> {
  const x509 = await loadX509();
  const crypto = webcrypto;
  const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', keys.publicKey));
  const binding = bytesToHex(schnorr.sign(taggedDigest(TLS_BINDING_TAG, spki), identity.secretKey));
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=unit guardian-network party ${identity.publicKey.slice(0, 16)}`,
      keys,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + VALID_MS),
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [
        new x509.SubjectAlternativeNameExtension([
          { type: 'url', value: `${URI_PREFIX}${identity.publicKey}/${binding}` },
        ]),
      ],
    },
    crypto as unknown as Parameters<typeof X509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
  return { key, cert: cert.toString('pem'), identityKey: identity.publicKey };
}

/**
 * The identity key a peer's certificate (DER, as node's `getPeerCertificate().raw` gives it) is
 * bound to, once its validity dates and its binding signature hold; throws a TlsPeerError if not.
 * `accept` says which identity keys may be on the other side (the one called, or the set's parties).
 */
export function peerIdentity(
  raw: Buffer | undefined,
  accept: (identityKey: string) => boolean,
  now = Date.now(),
): string {
  if (!raw || raw.length === 0)
    throw new TlsPeerError('no-certificate', 'The peer presented no TLS certificate; every link needs one bound to a party of the guardian set.'); // prettier-ignore
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(raw);
  } catch {
    throw new TlsPeerError('malformed', 'The peer’s TLS certificate could not be read; it must be one a guardian or coordinator of this network made at its start.'); // prettier-ignore
  }
  if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo))
    throw new TlsPeerError('expired', `The peer’s TLS certificate is valid only from ${cert.validFrom} to ${cert.validTo}; restart that party to make a new one, or check its clock.`); // prettier-ignore
  const uri = /URI:unit-identity:([0-9a-f]{64})\/([0-9a-f]{128})(?:,|$)/.exec(
    cert.subjectAltName ?? '',
  );
  if (!uri)
    throw new TlsPeerError('malformed', 'The peer’s TLS certificate names no identity key; it was not made by a party of this guardian network.'); // prettier-ignore
  const [, identityKey, sig] = uri as unknown as [string, string, string];
  if (!accept(identityKey))
    throw new TlsPeerError('not-in-set', `The peer’s TLS certificate belongs to identity ${identityKey.slice(0, 16)}…, which is not the party expected here in the published guardian set.`); // prettier-ignore
  const spki = new Uint8Array(cert.publicKey.export({ type: 'spki', format: 'der' }));
  let holds = false;
  try {
    holds = schnorr.verify(Buffer.from(sig, 'hex'), taggedDigest(TLS_BINDING_TAG, spki), Buffer.from(identityKey, 'hex')); // prettier-ignore
  } catch {
    holds = false;
  }
  if (!holds)
    throw new TlsPeerError('bad-binding', `The peer’s TLS key is not signed by identity ${identityKey.slice(0, 16)}…; its certificate was not made by that party.`); // prettier-ignore
  return identityKey;
}
