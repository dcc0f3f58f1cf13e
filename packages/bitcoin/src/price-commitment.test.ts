// The state record's commitment to the price quorum: a BIP-340 tagged hash of the canonical JSON of
// the quote's signed prices, in guardian order, signatures included.
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { quotedVault } from './flows/quoted-vault';
import { priceQuorumCommitment, type QuorumPrice } from './price-commitment';

const price = (guardian: number, priceCents: number): QuorumPrice => ({
  guardian,
  setVersion: 2,
  priceCents,
  time: 1_750_000_000 + guardian,
  sig: String(guardian).repeat(128).slice(0, 128),
});

describe('priceQuorumCommitment', () => {
  it('is the tagged hash of the canonical JSON text, keys sorted, in guardian order', () => {
    const text =
      `[{"guardian":1,"priceCents":9500000,"setVersion":2,"sig":"${'1'.repeat(128)}","time":1750000001},` +
      `{"guardian":3,"priceCents":9510000,"setVersion":2,"sig":"${'3'.repeat(128)}","time":1750000003}]`;
    const tag = sha256(new TextEncoder().encode('unit/price-quorum'));
    const expected = sha256(new Uint8Array([...tag, ...tag, ...new TextEncoder().encode(text)]));
    const got = priceQuorumCommitment([price(3, 9_510_000), price(1, 9_500_000)]);
    expect(hex.encode(got)).toBe(hex.encode(expected));
    expect(got).toHaveLength(32);
  });

  it('changes with any price, stamp, signature or guardian', () => {
    const base = [price(1, 9_500_000), price(2, 9_500_000)];
    const h = hex.encode(priceQuorumCommitment(base));
    const changed: QuorumPrice[][] = [
      [{ ...base[0]!, priceCents: 9_500_001 }, base[1]!],
      [{ ...base[0]!, time: 1 }, base[1]!],
      [{ ...base[0]!, sig: 'a'.repeat(128) }, base[1]!],
      [base[0]!, price(3, 9_500_000)],
      [base[0]!],
    ];
    for (const list of changed) expect(hex.encode(priceQuorumCommitment(list))).not.toBe(h);
  });

  it('refuses a price that is not an integer', () => {
    expect(() => priceQuorumCommitment([{ ...price(1, 1), priceCents: 1.5 }])).toThrow('integer');
  });
});

describe("quotedVault: the state fields of a quote's price quorum", () => {
  const keys = {
    vaultPubkey: new Uint8Array(32).fill(2),
    guardPubkey: hex.decode('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'),
    network: TEST_NETWORK,
  };
  const quote = { price_cents: 9_500_000, ts: 1_750_000_000, threshold_hash: '11'.repeat(20) };
  const request = { nonce: new Uint8Array(16), expiry: 1_750_000_100 };

  it('commits to the quorum in network mode, to nothing in off mode', () => {
    const quorum = [price(2, 9_500_000), price(1, 9_500_000)];
    const network = quotedVault({ ...quote, quorum }, 8_000_000, request, keys).state;
    expect(network.quorumCommitment).toEqual(priceQuorumCommitment(quorum));
    const off = quotedVault(quote, 8_000_000, request, keys).state;
    expect(off).not.toHaveProperty('quorumCommitment');
    expect(
      quotedVault({ ...quote, quorum: [] }, 8_000_000, request, keys).state,
    ).not.toHaveProperty('quorumCommitment');
  });
});
