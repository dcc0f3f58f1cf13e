// The audit's verdict on a kept price quorum: each way it can fail names why, and the sets source
// holds none with the network off or without a readable chain.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import type { GuardianSetBody } from '@unit/guardian-net';
import { signPrice } from '@unit/guardian-net/price';
import { priceQuorumHex } from '../store/price-quorums';
import { priceQuorumAuditProblem, setsFromDir } from './price-quorum';

const secret = (id: number) => new Uint8Array(32).fill(id);
const set = (t: number, version = 1) =>
  ({
    version,
    t,
    members: [1, 2, 3].map((id) => ({
      id,
      identityKey: Buffer.from(schnorr.getPublicKey(secret(id))).toString('hex'),
    })),
  }) as unknown as GuardianSetBody;
const price = (id: number, cents: number, time = 1_700_000_000, setVersion = 1) =>
  signPrice(secret(id), { guardian: id, setVersion, priceCents: cents, time });

describe('priceQuorumAuditProblem', () => {
  const prices = [price(1, 9_500_000), price(2, 9_510_000)];
  const commitment = priceQuorumHex(prices);

  it('passes prices that hash to the commitment, each signed by its guardian, a quorum of the set', () => {
    expect(priceQuorumAuditProblem(commitment, prices, set(2))).toBeNull();
  });

  it('names each way a kept quorum fails', () => {
    const check = (p: typeof prices, s = set(2)) =>
      priceQuorumAuditProblem(priceQuorumHex(p), p, s);
    expect(priceQuorumAuditProblem('00'.repeat(32), prices, set(2))).toBe(
      'the prices do not hash to the commitment',
    );
    expect(priceQuorumAuditProblem(commitment, prices, undefined)).toBe(
      'this server holds no guardian set of version 1',
    );
    expect(check([prices[1]!, prices[0]!])).toBe('the prices are not in guardian id order');
    expect(check([prices[0]!, { ...prices[1]!, priceCents: 9_520_000 }])).toBe(
      'guardian 2: price signature does not verify',
    );
    expect(check(prices, set(2, 2))).toBe('guardian 1: signed for set version 1');
    expect(check(prices, set(3))).toBe('2 guardian prices, 3 needed');
    expect(check([price(1, 9_500_000), price(2, 9_500_000, 1_700_000_070)])).toBe(
      'guardian 1: price is 70 s old',
    );
    expect(check([price(1, 9_500_000), price(2, 10_200_000)])).toMatch(
      /more than 3% from the median/,
    );
  });
});

describe('setsFromDir', () => {
  it('holds no set with the network off, nor without a readable chain', async () => {
    expect(await setsFromDir({ mode: 'off', dir: '/nonexistent' })(1)).toBeUndefined();
    expect(await setsFromDir({ mode: 'external', dir: '/nonexistent' })(1)).toBeUndefined();
  });
});
