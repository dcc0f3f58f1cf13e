// Every refusal the guardian owes a bad request, each on a real devnet with real signed PSBTs; a
// refused request never reaches the network and leaves the vault as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { getGuardianRequest, getVaultByPubkey } from '../../src/store';
import { call, codeOf, startHarness, type Harness, type TestWallet } from './harness';

describe('guardian refusals', () => {
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    // 0.01 BTC at 95,000 USD backs 500 UNIT at 190%.
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    await call(h.guardian, 'vault.open', (await bob.open(2_000_000n, 10_000n)).request);
  });
  afterAll(() => h.close());

  const aliceVault = async () => (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;

  it('refuses a borrow that leaves the ratio under 160%', async () => {
    const before = await aliceVault();
    // 593.75 UNIT is exactly 160%; 600 is under it.
    const { request } = await alice.borrow(10_000n);
    expect(await codeOf(call(h.guardian, 'vault.borrow', request))).toBe('ratio_too_low');
    expect(await aliceVault()).toEqual(before);
    expect((await getGuardianRequest(h.store.db, request.nonce))?.state).toBe('failed');
  });

  it('accepts a borrow that lands exactly on 160%', async () => {
    const { request } = await alice.borrow(9_375n);
    await call(h.guardian, 'vault.borrow', request);
    expect((await aliceVault()).unit_borrowed).toBe(59_375);
  });

  it('refuses a withdraw that leaves the ratio under 160%', async () => {
    const { request } = await alice.withdraw(10_000n);
    expect(await codeOf(call(h.guardian, 'vault.withdraw', request))).toBe('ratio_too_low');
  });

  it('refuses a replayed nonce even after the first request succeeded', async () => {
    const { request } = await alice.deposit(100_000n);
    await call(h.guardian, 'vault.deposit', request);
    const after = await aliceVault();
    expect(await codeOf(call(h.guardian, 'vault.deposit', request))).toBe('replayed');
    expect(await aliceVault()).toEqual(after);
  });

  it('refuses an expired request', async () => {
    const { request } = await alice.deposit(100_000n, { expiresIn: 0 });
    expect(await codeOf(call(h.guardian, 'vault.deposit', request))).toBe('expired');
  });

  it('refuses a quote older than 300 s', async () => {
    const { request } = await alice.deposit(100_000n, { quoteAge: -301 });
    expect(await codeOf(call(h.guardian, 'vault.deposit', request))).toBe('quote_expired');
  });

  it('refuses a quote whose price was altered after the oracle signed it', async () => {
    const { request } = await alice.deposit(100_000n);
    const forged = { ...request, quote: { ...request.quote, price_cents: 20_000_000 } };
    expect(await codeOf(call(h.guardian, 'vault.deposit', forged))).toBe('bad_signature');
  });

  it('refuses a forged vault signature', async () => {
    const before = await aliceVault();
    const { request } = await alice.deposit(100_000n, { forgeVaultSignature: true });
    expect(await codeOf(call(h.guardian, 'vault.deposit', request))).toBe('bad_signature');
    expect(await aliceVault()).toEqual(before);
    // Nothing reached the network: the vault output is still unspent.
    expect((await h.chain.output(before.vault_txid, 0))?.spent).toBe(false);
  });

  it('refuses a request whose vault input the wallet did not sign', async () => {
    const { request } = await alice.deposit(100_000n, { signVault: false });
    expect(await codeOf(call(h.guardian, 'vault.deposit', request))).toBe('bad_signature');
  });

  it('refuses a PSBT whose amounts differ from the request', async () => {
    const { request } = await alice.deposit(100_000n);
    const lying = { ...request, payload: { ...request.payload, deposit_amount: 200_000 } };
    expect(await codeOf(call(h.guardian, 'vault.deposit', lying))).toBe('bad_transaction');
  });

  it("refuses a transaction that spends someone else's vault", async () => {
    // Bob builds a deposit around Alice's vault output and sends it under his own key. Bob's key
    // did not sign that input: refused by the cheap checks, before anything is read or locked.
    const { request } = await alice.deposit(100_000n);
    const stolen = { ...request, vault_pubkey: bob.vaultPubkey };
    expect(await codeOf(call(h.guardian, 'vault.deposit', stolen))).toBe('bad_signature');
    expect(await getGuardianRequest(h.store.db, stolen.nonce)).toBeNull();
  });

  it("refuses an opening whose state record does not carry the vault's own key", async () => {
    const carol = await h.wallet('carol');
    for (const recordedKey of [null, new Uint8Array(32).fill(9)]) {
      const { request } = await carol.open(1_000_000n, 10_000n, { recordedKey });
      const refusal = call(h.guardian, 'vault.open', request);
      await expect(refusal).rejects.toThrow(/the recorded vault key does not match/);
      expect(await codeOf(refusal)).toBe('bad_transaction');
    }
    expect(await getVaultByPubkey(h.store.db, carol.vaultPubkey)).toBeNull();
  });

  it('refuses a second open for a key that already has a vault', async () => {
    expect(await codeOf(alice.reserve('open', 1_000))).toBe('vault_exists');
  });

  it('refuses a borrow without its reservation and accepts it with one', async () => {
    const { request } = await bob.borrow(1_000n);
    const { reservation_id: _dropped, ...unreserved } = request;
    expect(await codeOf(call(h.guardian, 'vault.borrow', unreserved))).toBe('reservation_missing');
    // Refused before anything reached the network: the same signed request, now with its
    // reservation, is taken without signing again.
    expect(await codeOf(call(h.guardian, 'vault.borrow', request))).toBe('ok');
    expect((await getVaultByPubkey(h.store.db, bob.vaultPubkey))?.unit_borrowed).toBe(11_000);
    // Once broadcast it is a replay.
    expect(await codeOf(call(h.guardian, 'vault.borrow', request))).toBe('replayed');
  });

  it('refuses a fee under the requested fee rate', async () => {
    const { request } = await bob.deposit(100_000n);
    const greedy = { ...request, payload: { ...request.payload, tx_feerate: 50 } };
    expect(await codeOf(call(h.guardian, 'vault.deposit', greedy))).toBe('fee_too_low');
  });

  it('refuses malformed params at the edge', async () => {
    const { request } = await bob.deposit(100_000n);
    expect(await codeOf(call(h.guardian, 'vault.deposit', { ...request, nonce: 'zz' }))).toBe(
      'bad_request',
    );
    expect(
      await codeOf(
        call(h.guardian, 'vault.deposit', {
          ...request,
          payload: { ...request.payload, deposit_amount: 0.5 },
        }),
      ),
    ).toBe('bad_request');
  });

  it('refuses a second concurrent request on the same vault with vault_busy', async () => {
    const first = await bob.deposit(100_000n);
    const second = await bob.deposit(200_000n);
    const codes = await Promise.all([
      codeOf(call(h.guardian, 'vault.deposit', first.request)),
      codeOf(call(h.guardian, 'vault.deposit', second.request)),
    ]);
    // Which one takes the vault's lock first is up to the database; exactly one does.
    expect([...codes].sort()).toEqual(['ok', 'vault_busy']);
    const deposited = codes[0] === 'ok' ? 100_000 : 200_000;
    expect((await getVaultByPubkey(h.store.db, bob.vaultPubkey))?.btc_locked).toBe(
      2_000_000 + deposited,
    );
  });

  it('never lets an unsigned PSBT through even when every amount is right', async () => {
    const { request, built } = await bob.deposit(100_000n);
    const unsigned = { ...request, psbt: base64.encode(built.psbt) };
    expect(Transaction.fromPSBT(built.psbt, { allowUnknownOutputs: true }).isFinal).toBe(false);
    expect(await codeOf(call(h.guardian, 'vault.deposit', unsigned))).toBe('bad_signature');
  });
});
