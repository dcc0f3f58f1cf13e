// The sign-in signature check against BIP-322's own test vectors (bitcoin/bips
// bip-0322/basic-test-vectors.json, as of the finished text that has signers prefix the variant):
// simple signatures with the `smp` prefix and the unprefixed fallback, and the error cases. The
// P2WSH multisig vector is left out: sign-in takes single-key addresses only.
import { describe, expect, it } from 'vitest';
import { addressNetworkProblem, verifyAddressSignature } from '../src/auth/signature';

const P2WPKH = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
const P2TR = 'bc1pss0zhytly75awhm6x2hhvd5lnzv3vssgrf9axfheq8ldyzn88ges79fler';
const EMPTY_SIGNED =
  'smpAkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=';

const valid: Array<[string, string, string]> = [
  ['', P2WPKH, EMPTY_SIGNED],
  [
    '',
    P2WPKH,
    'smpAkgwRQIhAPkJ1Q4oYS0htvyuSFHLxRQpFAY56b70UvE7Dxazen0ZAiAtZfFz1S6T6I23MWI2lK/pcNTWncuyL8UL+oMdydVgzAEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
  ],
  [
    'Hello World',
    P2WPKH,
    'smpAkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=',
  ],
  [
    'Hello World',
    P2WPKH,
    'smpAkgwRQIhAOzyynlqt93lOKJr+wmmxIens//zPzl9tqIOua93wO6MAiBi5n5EyAcPScOjf1lAqIUIQtr3zKNeavYabHyR8eGhowEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy',
  ],
  [
    'No prefix fallback',
    P2TR,
    'AUCJYOwOjxYAvatTAGYaVlNXBVyFuc4MwNQkOuK2tl8xhfKDONd0NjfYyNSYcRqeCp8hsAnCEPHAVEkO9h6vbQ/R',
  ],
];

describe('BIP-322 test vectors', () => {
  it('verifies the simple signatures, prefixed and not', () => {
    for (const [message, address, signature] of valid) {
      expect(verifyAddressSignature(address, message, signature), signature).toBe(true);
    }
    // The same witness without its prefix is the pre-final encoding: still simple, still valid.
    expect(verifyAddressSignature(P2WPKH, '', EMPTY_SIGNED.slice(3))).toBe(true);
  });

  it('refuses the error vectors', () => {
    const refused: Array<[string, string, string]> = [
      ['', P2WPKH, 'not-valid-base64!!!'],
      ['', P2WPKH, ''],
      ['Wrong message that was not signed', P2WPKH, EMPTY_SIGNED],
      ['', 'bc1qp0ahvfh83088w49k405szqgg4f3pptr7p2g06tdxfjcd40z4lh4q95lsz9', EMPTY_SIGNED],
      ['', P2WPKH, 'smpAA=='],
      ['', P2WPKH, 'fooAA=='],
      [
        'incorrect prefix',
        'bc1pyrgrm6cu6n54jrvkdjd9rvyd3xfyu84s2623awu2srn6mxhscwpsm5644w',
        'fulAUDZwFXUp+adN+/UZj5dVrGAbB3zKs1Vcalz5fCF9srxS63eSWNGvH1NYbrBkPt1BJDUyWUz9zgUxfc63/QheT6M',
      ],
    ];
    for (const [message, address, signature] of refused) {
      expect(verifyAddressSignature(address, message, signature), signature).toBe(false);
    }
  });
});

describe('the network of a sign-in address', () => {
  it('takes tb1 on the devnet and test networks and bc1 on mainnet, and names the mismatch', () => {
    const testnet = 'tb1q9vza2e8x573nczrlzms0wvx3gsqjx7vaxwd45v';
    const regtest = 'bcrt1q9vza2e8x573nczrlzms0wvx3gsqjx7vay85cr9';
    for (const network of ['devnet', 'signet', 'mutinynet'] as const) {
      expect(addressNetworkProblem(testnet, network)).toBeNull();
      expect(addressNetworkProblem(P2WPKH, network)).toMatch(/^This is a mainnet address/);
      expect(addressNetworkProblem(regtest, network)).toMatch(/^This is a regtest address/);
    }
    expect(addressNetworkProblem(P2TR, 'mainnet')).toBeNull();
    expect(addressNetworkProblem(testnet, 'mainnet')).toBe(
      'This is a testnet address, but this server runs on mainnet: connect an account of mainnet (bc1…) to sign in',
    );
    expect(addressNetworkProblem(regtest, 'mainnet')).toMatch(/^This is a regtest address/);
    expect(addressNetworkProblem('bc1qnotanaddress', 'mainnet')).toBe(
      'This is not a Bitcoin address',
    );
  });
});
