// The treasury input's internal key in the wallet's PSBT: this server's treasury key when the
// treasury is its P2TR, none when it is the guardian network's `OP_1 <group key>` (btc-signer
// refuses an internal key whose tweak does not give the spent output).
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { Address, p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { treasuryInternalKey } from '../src/flows/treasury-key';
import { testConfig } from './wallet/fixtures';

const key = pubSchnorr(new Uint8Array(32).fill(7));

describe('treasuryInternalKey', () => {
  it("is the served key when the treasury is that key's P2TR", () => {
    const config = {
      ...testConfig('signet'),
      treasuryPubkey: hex.encode(key),
      treasuryAddress: p2tr(key, undefined, TEST_NETWORK).address!,
    };
    expect(treasuryInternalKey(config)).toEqual({ internalKey: key });
  });

  it('is absent when the treasury is OP_1 <served key> (the group key)', () => {
    const config = {
      ...testConfig('signet'),
      treasuryPubkey: hex.encode(key),
      treasuryAddress: Address(TEST_NETWORK).encode({ type: 'tr', pubkey: key }),
    };
    expect(treasuryInternalKey(config)).toEqual({});
  });
});
