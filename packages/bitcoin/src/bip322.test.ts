// BIP-322 "simple" signing: the BIP's message-hash vectors, and every signature checked by
// bip322-js (the verifier the server runs), which also accepts the BIP's own vector signature.
// ECDSA nonces differ between signers, so signatures are verified rather than compared.
import { NETWORK, TEST_NETWORK, WIF, p2tr, p2wpkh } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Verifier } from 'bip322-js';
import { describe, expect, it } from 'vitest';
import { bip322MessageHash, signBip322Simple } from './bip322';

// BIP-322, Test vectors.
const SECRET = WIF(NETWORK).decode('L3VFeEujGtevx9w18HD1fhRbCH67Az2dpCymeRE1SoPK6XQtaN2k');
const ADDRESS = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
const VECTOR_HELLO =
  'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=';

describe('BIP-322 simple signatures', () => {
  it('hashes messages as the BIP tags them', () => {
    expect(hex.encode(bip322MessageHash(''))).toBe(
      'c90c269c4f8fcbe6880f72a721ddfbf1914268a794cbb21cfafee13770ae19f1',
    );
    expect(hex.encode(bip322MessageHash('Hello World'))).toBe(
      'f0eb03b1a75ac6d9847f55c624a99169b5dccba2a31f5b23bea77ba270de0a7a',
    );
  });

  it('signs for P2WPKH what the verifier accepts, as it accepts the BIP vector', () => {
    const payment = p2wpkh(secp256k1.getPublicKey(SECRET, true), NETWORK);
    expect(payment.address).toBe(ADDRESS);
    expect(Verifier.verifySignature(ADDRESS, 'Hello World', VECTOR_HELLO)).toBe(true);
    for (const message of ['', 'Hello World', 'wants you to sign in\nNonce: 00']) {
      const signature = signBip322Simple({ message, script: payment.script, secretKey: SECRET });
      expect(Verifier.verifySignature(ADDRESS, message, signature)).toBe(true);
      expect(Verifier.verifySignature(ADDRESS, `${message}!`, signature)).toBe(false);
    }
  });

  it('signs for P2TR key path on the test network', () => {
    const pub = secp256k1.getPublicKey(SECRET, true).subarray(1);
    const taproot = p2tr(pub, undefined, TEST_NETWORK);
    const signature = signBip322Simple({
      message: 'Hello World',
      script: taproot.script,
      secretKey: SECRET,
      internalKey: pub,
    });
    expect(Verifier.verifySignature(taproot.address!, 'Hello World', signature)).toBe(true);
    const other = p2tr(secp256k1.getPublicKey(new Uint8Array(32).fill(3), true).subarray(1));
    expect(() => Verifier.verifySignature(other.address!, 'Hello World', signature)).not.toThrow();
    expect(Verifier.verifySignature(other.address!, 'Hello World', signature)).toBe(false);
  });
});
