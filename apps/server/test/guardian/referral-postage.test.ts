// Referral levels' postage takes effect: once an account has referred a user who opened a
// vault, the guardian holds the UNIT outputs of its open, borrow and repay to its level's postage,
// on a real devnet. UNIT sent back to the treasury keeps the default postage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERRAL_LEVELS, UNIT_POSTAGE_SATS } from '@unit/protocol';
import { ensureUser } from '../../src/store/users';
import { call, startHarness, type Harness, type TestWallet } from './harness';

const NEBULA = BigInt(REFERRAL_LEVELS.level_one.postage_sats);
const DEFAULT = BigInt(UNIT_POSTAGE_SATS);
const POSTAGE_REFUSED = 'Invalid transaction: UNIT postage amount';

describe("a referral level's postage on the devnet", () => {
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    await ensureUser(h.store.db, alice.paymentAddress);
    await ensureUser(h.store.db, bob.paymentAddress, alice.paymentAddress);
  });
  afterAll(() => h.close());

  /** The postage of the runes output a transaction created (output 1 of open, borrow; 2 of repay). */
  const postageOf = async (txid: string, vout: number) =>
    BigInt((await h.chain.output(txid, vout))!.value);

  it('gives an account without referrals the default postage', async () => {
    const open = await bob.open(1_000_000n, 50_000n);
    const tooMuch = await bob.open(1_000_000n, 50_000n, { postageSats: NEBULA });
    await expect(call(h.guardian, 'vault.open', tooMuch.request)).rejects.toThrow(POSTAGE_REFUSED);
    const { vault_txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.open',
      open.request,
    );
    expect(await postageOf(vault_txid, 1)).toBe(DEFAULT);
  });

  it("holds a Nebula account's open to Nebula's postage once its referral opened a vault", async () => {
    // bob, referred by alice, opened his vault above: alice is Nebula now
    const atDefault = await alice.open(1_000_000n, 30_000n);
    await expect(call(h.guardian, 'vault.open', atDefault.request)).rejects.toThrow(
      POSTAGE_REFUSED,
    );
    const open = await alice.open(1_000_000n, 30_000n, { postageSats: NEBULA });
    const { vault_txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.open',
      open.request,
    );
    expect(await postageOf(vault_txid, 1)).toBe(NEBULA);
    await h.devnet.mine(1);
  });

  it('and its borrow and repay, while UNIT sent back to the treasury keeps the default', async () => {
    const borrow = await alice.borrow(10_000n, { postageSats: NEBULA });
    const borrowed = await call<{ vault_txid: string }>(h.guardian, 'vault.borrow', borrow.request);
    expect(await postageOf(borrowed.vault_txid, 1)).toBe(NEBULA);
    await h.devnet.mine(1);

    const atDefault = await alice.repay(10_000n);
    await expect(call(h.guardian, 'vault.repay', atDefault.request)).rejects.toThrow(
      'Invalid transaction: UNIT change postage amount',
    );
    const repay = await alice.repay(10_000n, { postageSats: NEBULA });
    const repaid = await call<{ vault_txid: string }>(h.guardian, 'vault.repay', repay.request);
    expect(await postageOf(repaid.vault_txid, 1)).toBe(DEFAULT);
    expect(await postageOf(repaid.vault_txid, 2)).toBe(NEBULA);
  });
});
