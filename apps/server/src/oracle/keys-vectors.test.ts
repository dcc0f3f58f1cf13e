// The app oracle's quote digest and signature check against docs/vectors/guardian-messages.json:
// the guardians check quotes with their own copy of the digest (vault-policy/context.ts), so both
// are held to the same recorded bytes.
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import vectors from '../../../../docs/vectors/guardian-messages.json';
import { quoteDigest, verifyQuote } from './keys';

describe('the oracle quote of docs/vectors/guardian-messages.json', () => {
  const { fields, digest, signature, signer } = vectors.quote;
  const oracleKey = vectors.parties[signer as keyof typeof vectors.parties].identityKey;

  it('has the recorded digest', () => {
    expect(bytesToHex(quoteDigest(fields))).toBe(digest);
  });

  it("verifies under the oracle's key, and not for another threshold", () => {
    expect(verifyQuote(oracleKey, { ...fields, signature })).toBe(true);
    expect(verifyQuote(oracleKey, { ...fields, th: fields.th + 1, signature })).toBe(false);
  });
});
