// The owner's exit while a repossession of the vault waits in the mempool: the walk from the
// opening stops at the vault's output (the claim writes the claimant's vault, not this one) and
// names the claim with its fee rate and fee, which the exit must beat to replace it (BIP-125); a
// mined claim is followed as any spend. The esplora is a fake at fetch, the edge of this unit test.
import { describe, expect, it, vi } from 'vitest';
import { hex } from '@scure/base';
import { TEST_NETWORK, p2wpkh } from '@scure/btc-signer';
import { fakeTxid, guardianKey, strangerKey, testKey, userKey } from '../test/testKeys';
import { ExitEsplora, readVaultExit, type FetchLike } from './exit-chain';
import { describeVaultExit, feeRateAboveClaim, pendingClaimSentence } from './exit-describe';
import { planExit } from './exit-spend';
import { stateRecordScript, type StateRecord } from './state-record';
import { thresholdHash, vaultOutput } from './vault-script';

const TERM = { settleHeight: 1_040, exitHeight: 1_060 };
const OPENING = fakeTxid(1);
const CLAIM = fakeTxid(2);

const vaultOf = (key: typeof userKey) =>
  vaultOutput({
    vaultPubkey: key.xOnly,
    guardPubkey: guardianKey.xOnly,
    thresholdHash: thresholdHash(new Uint8Array(32).fill(3)),
    network: TEST_NETWORK,
    term: TERM,
  });
const owner = vaultOf(userKey);
const claimant = vaultOf(strangerKey);

const recordOf = (action: StateRecord['action'], sats: bigint, exitBranch: Uint8Array) =>
  stateRecordScript({
    ...{ action, unitDebt: 59_000n, vaultSats: sats, quotePriceCents: 1n, thresholdCents: 0n },
    ...{ quoteStamp: 1, nonce: new Uint8Array(16), expiry: 2 },
    term: { ...TERM, exitBranch },
  });

const txOf = (
  txid: string,
  out: ReturnType<typeof vaultOf>,
  sats: number,
  action: StateRecord['action'],
  confirmed: boolean,
) => ({
  txid,
  vout: [
    { scriptpubkey: hex.encode(out.script), scriptpubkey_address: out.address, value: sats },
    { scriptpubkey: hex.encode(recordOf(action, BigInt(sats), out.exitBranch!)), value: 0 },
  ],
  status: { confirmed },
  // 1,400 weight units: 350 vB; 17,500 sats: 50 sat/vB
  fee: 17_500,
  weight: 1_400,
});

function esplora(answers: Record<string, unknown>) {
  const fetchImpl = vi.fn(async (url: string) => {
    const body = answers[new URL(url).pathname.replace(/^\/api/, '')];
    if (body === undefined) return { ok: false, status: 404, text: async () => 'Not found' };
    return { ok: true, status: 200, text: async () => JSON.stringify(body) };
  });
  return new ExitEsplora('http://chain.test/api', fetchImpl as FetchLike, 200);
}

/** The owner's vault opened, its output spent by a claim (mined or not). */
const chainWith = (claim: object) =>
  esplora({
    [`/tx/${OPENING}`]: txOf(OPENING, owner, 90_000, 'o', true),
    [`/tx/${OPENING}/outspend/0`]: { spent: true, txid: CLAIM, status: { confirmed: false } },
    [`/tx/${CLAIM}`]: claim,
    [`/tx/${CLAIM}/outspend/0`]: { spent: false },
    '/blocks/tip/height': 1_070,
  });

describe('the exit while a claim of the vault waits for a block', () => {
  it('stops at the vault output and names the claim, its fee rate and fee', async () => {
    const chain = chainWith(txOf(CLAIM, claimant, 150_000, 'x', false));
    const facts = await readVaultExit(chain, OPENING);
    expect(facts.utxo).toMatchObject({ txid: OPENING, vout: 0, amount: 90_000n });
    expect(facts.pendingClaim).toEqual({ txid: CLAIM, feeRate: 50, feeSats: 17_500 });
    const sentence = pendingClaimSentence(facts.pendingClaim!);
    expect(sentence).toBe(
      `A claim of this vault, transaction ${CLAIM}, is waiting for a block: your exit replaces it only if it pays a higher fee rate and a higher fee than the claim's (50 sat/vB, 17500 sats), so choose a fee rate above it.`,
    );
    expect(describeVaultExit(facts)).toContain(`claim          ${sentence}`);

    // The owner's key plans the exit from this output; at the least rate that beats the claim
    // it pays more than the claim did, in rate and in sats.
    const plan = (feeRate: number) =>
      planExit({
        ...{ vaultPubkey: userKey.xOnly, exitHeight: TERM.exitHeight },
        ...{ exitBranch: owner.exitBranch!, utxo: facts.utxo, feeRate, tipHeight: 1_070 },
        toAddress: p2wpkh(testKey('recipient').compressed, TEST_NETWORK).address!,
        network: TEST_NETWORK,
      });
    const least = feeRateAboveClaim(facts.pendingClaim!, plan(1).vsize)!;
    expect(least).toBeGreaterThan(50);
    expect(plan(least).feeSats).toBeGreaterThan(17_500n + BigInt(plan(least).vsize));
    // and it is the least: one less fails the rate or the fee
    const below = plan(least - 1);
    expect(least - 1 <= 50 || below.feeSats < 17_500n + BigInt(below.vsize)).toBe(true);
  });

  it('says the claim without figures when the esplora gives no fee or weight', async () => {
    const bare = { ...txOf(CLAIM, claimant, 150_000, 'x', false), fee: undefined };
    const facts = await readVaultExit(chainWith(bare), OPENING);
    expect(facts.pendingClaim).toEqual({ txid: CLAIM, feeRate: null, feeSats: null });
    expect(pendingClaimSentence(facts.pendingClaim!)).toMatch(/than the claim's, so choose/);
    expect(feeRateAboveClaim(facts.pendingClaim!, 150)).toBeNull();
  });

  it('follows a mined claim, and an owner action still waiting, as any spend', async () => {
    const mined = await readVaultExit(
      chainWith(txOf(CLAIM, claimant, 150_000, 'x', true)),
      OPENING,
    );
    expect(mined.utxo.txid).toBe(CLAIM);
    expect(mined.pendingClaim).toBeUndefined();
    const deposit = await readVaultExit(chainWith(txOf(CLAIM, owner, 95_000, 'd', false)), OPENING);
    expect(deposit.utxo).toMatchObject({ txid: CLAIM, amount: 95_000n });
    expect(deposit.pendingClaim).toBeUndefined();
  });
});

describe('the exit by the vault address while a claim waits', () => {
  it('finds the output the esplora leaves out of the address’s unspent ones', async () => {
    const opening = txOf(OPENING, owner, 90_000, 'o', true);
    const claimTx = txOf(CLAIM, claimant, 150_000, 'x', false);
    const chain = esplora({
      [`/address/${owner.address}/utxo`]: [],
      // the mempool's first: the claim spends the address's output, then the opening wrote it
      [`/address/${owner.address}/txs`]: [claimTx, opening],
      [`/tx/${OPENING}/outspend/0`]: { spent: true, txid: CLAIM, status: { confirmed: false } },
      [`/tx/${CLAIM}`]: claimTx,
      '/blocks/tip/height': 1_070,
    });
    const facts = await readVaultExit(chain, owner.address);
    expect(facts.utxo).toMatchObject({ txid: OPENING, vout: 0, amount: 90_000n });
    expect(facts.pendingClaim).toEqual({ txid: CLAIM, feeRate: 50, feeSats: 17_500 });
  });

  it('names the claim too where the esplora still lists the output it spends', async () => {
    const claimTx = txOf(CLAIM, claimant, 150_000, 'x', false);
    const chain = esplora({
      [`/address/${owner.address}/utxo`]: [{ txid: OPENING, vout: 0 }],
      [`/tx/${OPENING}`]: txOf(OPENING, owner, 90_000, 'o', true),
      [`/tx/${OPENING}/outspend/0`]: { spent: true, txid: CLAIM, status: { confirmed: false } },
      [`/tx/${CLAIM}`]: claimTx,
      '/blocks/tip/height': 1_070,
    });
    const facts = await readVaultExit(chain, owner.address);
    expect(facts.utxo.txid).toBe(OPENING);
    expect(facts.pendingClaim?.txid).toBe(CLAIM);
  });

  it('still says an address holds nothing when no claim spends it', async () => {
    const chain = esplora({
      [`/address/${owner.address}/utxo`]: [],
      [`/address/${owner.address}/txs`]: [txOf(OPENING, owner, 90_000, 'o', true)],
      [`/tx/${OPENING}/outspend/0`]: { spent: true, txid: CLAIM, status: { confirmed: true } },
      [`/tx/${CLAIM}`]: txOf(CLAIM, claimant, 150_000, 'x', true),
    });
    await expect(readVaultExit(chain, owner.address)).rejects.toThrow(
      'That address holds nothing on this chain: check the address and the chain URL.',
    );
  });
});

describe('feeRateAboveClaim', () => {
  it('is a whole rate above the claim’s, and high enough that the fee beats the claim’s', () => {
    // a small claim: the rate decides
    expect(feeRateAboveClaim({ txid: CLAIM, feeRate: 10.4, feeSats: 1_000 }, 150)).toBe(11);
    // a big claim against a small exit: the fee decides, (30,000 + 150) / 150 = 201
    expect(feeRateAboveClaim({ txid: CLAIM, feeRate: 50, feeSats: 30_000 }, 150)).toBe(201);
  });
});
