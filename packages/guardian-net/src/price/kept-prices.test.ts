// A guardian keeps the signed prices of each quote it approves, in its own directory under their
// commitment, and reads them back by that name only; a refusal keeps nothing, and an approval whose
// prices cannot be kept becomes a refusal that says why.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keepApproved, keepQuorum, quorumOfContext, readKeptQuorum } from './kept-prices';
import { priceQuorumCommitment, signPrice } from './signed-price';

const key = (id: number) => new Uint8Array(32).fill(id);
const price = (id: number, cents: number) =>
  signPrice(key(id), { guardian: id, setVersion: 1, priceCents: cents, time: 1_700_000_000 });
const prices = [price(1, 9_500_000), price(2, 9_510_000)];
const context = (quorum: unknown) => ({ request: { quote: { price_cents: 1, quorum } } });

const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kept-prices-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('kept prices', () => {
  it('keeps an approved quote’s prices under their commitment, in id order, and reads them back', () => {
    const dir = newDir();
    // The quote's order is not trusted: the file is in guardian id order, as the hash is.
    const approved = keepApproved(dir, context([prices[1], prices[0]]), { approve: true });
    expect(approved).toEqual({ approve: true });
    const commitment = priceQuorumCommitment(prices);
    expect(readdirSync(join(dir, 'prices'))).toEqual([`${commitment}.json`]);
    expect(readKeptQuorum(dir, commitment)).toEqual({ commitment, prices });
    // Kept once: a second approval of the same quorum leaves the file as it is.
    expect(keepQuorum(dir, prices)).toBe(commitment);
    expect(readdirSync(join(dir, 'prices'))).toHaveLength(1);
  });

  it('keeps nothing for a refusal or a quote without a quorum', () => {
    const dir = newDir();
    const refused = { approve: false as const, reason: 'no' };
    expect(keepApproved(dir, context(prices), refused)).toBe(refused);
    expect(keepApproved(dir, context(undefined), { approve: true })).toEqual({ approve: true });
    expect(keepApproved(dir, { action: 'treasury-split' }, { approve: true })).toEqual({
      approve: true,
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads only a 64-hex name: no path, no other file of its directory', () => {
    const dir = newDir();
    writeFileSync(join(dir, 'identity.json'), '{"secret":"x"}');
    for (const name of ['../identity', '..%2fidentity', 'AB'.repeat(32), 'ab'.repeat(33), ''])
      expect(readKeptQuorum(dir, name)).toBeNull();
    expect(readKeptQuorum(dir, 'ab'.repeat(32))).toBeNull();
  });

  it('refuses, saying why, an approval whose prices it cannot keep', () => {
    const bad = keepApproved(newDir(), context([{ guardian: 1 }]), { approve: true });
    expect(bad).toEqual({
      approve: false,
      reason:
        "this guardian could not keep the quote's signed prices in its directory (not a signed price), so it signs nothing a validator could not check",
    });
    // Its prices folder cannot be made (a file stands in its place): the approval does not stand.
    const dir = newDir();
    writeFileSync(join(dir, 'prices'), '');
    const unwritable = keepApproved(dir, context(prices), { approve: true });
    expect(unwritable).toMatchObject({ approve: false });
    expect(() => quorumOfContext(context(Array(65).fill(prices[0])))).toThrow(
      'a quote carries at most 64 prices',
    );
  });
});
