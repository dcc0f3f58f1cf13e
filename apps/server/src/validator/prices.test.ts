// The validator's check of a record's signed prices: what a guardian serves passes only when it
// hashes to the record's commitment, is signed by the set's guardians and is the quorum of the
// record's price and stamp; other prices name a broken rule, and no prices (or an unknown set)
// leave the record unverifiable. Guardians are asked through an injected reader (the edge).
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import type { GuardianSetBody } from '@unit/guardian-net';
import { priceQuorumCommitment, signPrice, type SignedPrice } from '@unit/guardian-net/price';
import type { QuorumToCheck, StateRecord } from '@unit/bitcoin';
import { checkRecordPrices, readKeptPrices, recordPricesVerdict } from './prices';

const secret = (id: number) => new Uint8Array(32).fill(id);
const set = {
  version: 1,
  t: 2,
  members: [1, 2, 3].map((id) => ({
    id,
    identityKey: Buffer.from(schnorr.getPublicKey(secret(id))).toString('hex'),
  })),
} as unknown as GuardianSetBody;
const T = 1_700_000_000;
const price = (id: number, cents: number, time = T) =>
  signPrice(secret(id), { guardian: id, setVersion: 1, priceCents: cents, time });
const prices = [price(1, 9_500_000, T), price(2, 9_510_000, T + 4)];

const quorum = (p: SignedPrice[], cents = 9_505_000, stamp = T + 6): QuorumToCheck => ({
  txid: 'ab'.repeat(32),
  vaultId: 'cd'.repeat(32),
  commitment: priceQuorumCommitment(p),
  record: { quotePriceCents: BigInt(cents), quoteStamp: stamp } as StateRecord,
});
const setOf = (v: number) => (v === 1 ? set : undefined);

describe('recordPricesVerdict', () => {
  it("passes the signed prices whose hash is the record's commitment and whose median is its quote price", () => {
    expect(recordPricesVerdict(quorum(prices), { prices }, setOf)).toEqual({ ok: true });
  });

  it('names prices that do not hash to the commitment: a tampered price, a dropped one', () => {
    const tampered = [{ ...prices[0]!, priceCents: 9_400_000 }, prices[1]!];
    const q = quorum(prices);
    const broken = {
      ok: false,
      kind: 'broken-rule',
      problem: "its prices do not hash to the record's price quorum commitment",
    };
    expect(recordPricesVerdict(q, { prices: tampered }, setOf)).toEqual(broken);
    expect(recordPricesVerdict(q, { prices: [prices[0]] }, setOf)).toEqual(broken);
  });

  it('names an answer that is no list of signed prices', () => {
    for (const served of [null, {}, { prices: [] }, { prices: [{ guardian: 1 }] }, 'x'])
      expect(recordPricesVerdict(quorum(prices), served, setOf)).toMatchObject({
        kind: 'broken-rule',
        problem: 'the answer is not a list of signed prices',
      });
  });

  it("names a record whose quote price or stamp is not its quorum's, and a forged signature", () => {
    expect(recordPricesVerdict(quorum(prices, 9_600_000), { prices }, setOf)).toMatchObject({
      kind: 'broken-rule',
      problem: expect.stringContaining('not a quorum of guardian prices') as string,
    });
    // The record's stamp is the threshold's: within a quote's life of the prices, not further.
    expect(recordPricesVerdict(quorum(prices, 9_505_000, T + 330), { prices }, setOf)).toEqual({
      ok: true,
    });
    expect(recordPricesVerdict(quorum(prices, 9_505_000, T + 331), { prices }, setOf)).toEqual({
      ok: false,
      kind: 'broken-rule',
      problem: `its prices are stamped 331 s from the record's quote stamp ${T + 331}, more than a quote lives (330 s)`,
    });
    // Guardian 2's price signed by guardian 3's key: the hash matches, the signature does not.
    const forged = [prices[0]!, { ...price(3, 9_510_000, T + 4), guardian: 2 }];
    expect(recordPricesVerdict(quorum(forged), { prices: forged }, setOf)).toEqual({
      ok: false,
      kind: 'broken-rule',
      problem: "guardian 2's price in the quote: price signature does not verify",
    });
    // One guardian's price alone is under the set's t of 2.
    const one = [prices[0]!];
    expect(recordPricesVerdict(quorum(one, 9_500_000), { prices: one }, setOf)).toMatchObject({
      kind: 'broken-rule',
    });
  });

  it('leaves unverifiable prices of a set this validator does not hold', () => {
    const other = [1, 2].map((id) =>
      signPrice(secret(id), { guardian: id, setVersion: 2, priceCents: 9_500_000, time: T }),
    );
    expect(recordPricesVerdict(quorum(other, 9_500_000), { prices: other }, setOf)).toEqual({
      ok: false,
      kind: 'unverifiable',
      problem:
        'its prices are signed for guardian set version 2, which this validator does not hold (give it with --set)',
    });
  });
});

describe('checkRecordPrices', () => {
  const sources = (answers: Record<string, { json: unknown } | { none: string }>) => ({
    guardians: Object.keys(answers),
    sets: [set],
    read: (g: string) => Promise.resolve(answers[g]!),
  });

  it('checks the record when any guardian serves its prices', async () => {
    const q = quorum(prices);
    const served = { json: { commitment: q.commitment, prices } };
    expect(
      await checkRecordPrices(q, sources({ a: { none: 'is unreachable' }, b: served })),
    ).toBeNull();
  });

  it('names a broken rule when the only prices served are not the commitment’s', async () => {
    const q = quorum(prices);
    const tampered = [{ ...prices[0]!, priceCents: 1 }, prices[1]!];
    const finding = await checkRecordPrices(
      q,
      sources({ a: { json: { prices: tampered } }, b: { none: 'keeps none' } }),
    );
    expect(finding).toEqual({
      kind: 'broken-rule',
      txid: q.txid,
      vaultId: q.vaultId,
      message: `no guardian serves the signed prices of its price quorum ${q.commitment}; a: its prices do not hash to the record's price quorum commitment`,
    });
  });

  it('leaves the record unverifiable when no guardian serves its prices, naming each', async () => {
    const q = quorum(prices);
    const finding = await checkRecordPrices(
      q,
      sources({ a: { none: 'keeps none' }, b: { none: 'did not answer in 5 s' } }),
    );
    expect(finding).toMatchObject({
      kind: 'unverifiable',
      message: `its price quorum ${q.commitment} was not checked: a keeps none; b did not answer in 5 s`,
    });
    expect(await checkRecordPrices(q, { guardians: [], sets: [set] })).toMatchObject({
      kind: 'unverifiable',
    });
  });
});

describe('readKeptPrices', () => {
  it('gives up on a guardian that does not answer within its time-out', async () => {
    const http = await import('node:http');
    const server = http.createServer(() => {}); // holds every request
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const started = Date.now();
    const answer = await readKeptPrices(`http://127.0.0.1:${port}`, 'ab'.repeat(32), 200);
    expect(answer).toEqual({ none: 'did not answer in 0.2 s' });
    expect(Date.now() - started).toBeLessThan(2_000);
    server.closeAllConnections();
    server.close();
  });
});
