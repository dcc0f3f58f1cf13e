import { describe, expect, it } from 'vitest';
import { randomBytes } from '@noble/hashes/utils.js';
import { frost, frostIdentifier } from './frost';
import { shareChecker } from './verify-share';

describe('shareChecker', () => {
  it('agrees with noble’s verifyShare on good and bad shares, whatever the parities of R and the key', () => {
    let good = 0;
    for (let round = 0; round < 8; round++) {
      const ids = [1, 2, 3, 4, 5].map(frostIdentifier);
      const dealt = frost.trustedDealer({ min: 3, max: 5 }, ids);
      const message = randomBytes(32);
      const signers = [ids[round % 5]!, ids[(round + 1) % 5]!, ids[(round + 3) % 5]!];
      const nonces = signers.map((id) => frost.commit(dealt.secretShares[id]!));
      const list = nonces.map((n) => n.commitments);
      const shares = signers.map((id, i) =>
        frost.signShare(dealt.secretShares[id]!, dealt.public, nonces[i]!.nonces, list, message),
      );
      const ok = shareChecker(dealt.public, list, message);
      signers.forEach((id, i) => {
        const share = shares[i]!;
        expect(ok(id, share)).toBe(true);
        expect(frost.verifyShare(dealt.public, list, message, id, share)).toBe(true);
        good++;
        const bad = share.slice();
        bad[31] = bad[31]! ^ 1;
        expect(ok(id, bad)).toBe(false);
        expect(frost.verifyShare(dealt.public, list, message, id, bad)).toBe(false);
        // Another signer's share under this one's name, and a name not in the session.
        expect(ok(signers[(i + 1) % 3]!, share)).toBe(false);
        expect(
          ok(
            ids.find((x) => !signers.includes(x))!,
            share,
          ),
        ).toBe(false);
      });
      expect(ok(signers[0]!, new Uint8Array(31))).toBe(false);
      expect(ok(signers[0]!, new Uint8Array(32).fill(0xff))).toBe(false);
    }
    expect(good).toBe(24);
  });
});
