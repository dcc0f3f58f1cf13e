// Outcomes the network did not tell, settled from the chain. The guardian reaches
// the chain over HTTP (EsploraChain) through a local proxy in front of the devnet's own esplora
// routes; the proxy loses, delays or refuses answers the way a real service does. Runs on SQLite,
// and on PostgreSQL with FLOW_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainUnavailableError } from '../../src/chain/port';
import type { Guardian } from '../../src/cosign';
import { vaultLock } from '../../src/cosign/locks';
import { UNANSWERED_BOUND_SECONDS } from '../../src/cosign/recover';
import { getGuardianRequest, getVaultByPubkey } from '../../src/store';
import { call, codeOf, type Harness, type TestWallet } from './harness';
import { TIMEOUT_MS } from './lossy-proxy';
import { startLossyGuardian, type LossySetup } from './lossy-setup';

describe('broadcasts whose answer is lost', () => {
  let setup: LossySetup;
  let h: Harness;
  let proxy: LossySetup['proxy'];
  let chain: LossySetup['chain'];
  let guardian: Guardian;
  let wallets = 0;

  beforeAll(async () => {
    setup = await startLossyGuardian();
    ({ h, proxy, chain, guardian } = setup);
  });
  afterAll(() => setup.close());

  const withVault = async (): Promise<TestWallet> => {
    proxy.state.mode = 'pass';
    const wallet = await h.wallet(`lost ${wallets++}`);
    await call(guardian, 'vault.open', (await wallet.open(2_000_000n, 50_000n)).request);
    await h.devnet.mine(1);
    return wallet;
  };
  const lockOf = (wallet: TestWallet) => setup.lockOf(wallet);
  const depositsAgain = (wallet: TestWallet) => setup.depositsAgain(wallet);

  it('tells a service that does not answer from a refusal, within the time-out', async () => {
    const txid = '00'.repeat(32);
    for (const mode of ['down', 'reset'] as const) {
      proxy.state.mode = mode;
      await expect(chain.txStatus(txid)).rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(chain.broadcast('00')).rejects.toBeInstanceOf(ChainUnavailableError);
    }
    proxy.state.mode = 'hang';
    const started = Date.now();
    await expect(chain.txStatus(txid)).rejects.toBeInstanceOf(ChainUnavailableError);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 10);
    proxy.state.mode = 'pass';
    expect(await chain.txStatus(txid)).toBeNull();
  });

  const answers = { drop: 'lost', delay: 'too late', lag: 'lost and the indexer lagged' };
  for (const mode of ['drop', 'delay', 'lag'] as const) {
    it(`commits a deposit the network took though its answer was ${answers[mode]}`, async () => {
      const wallet = await withVault();
      proxy.state.mode = mode;
      const posts = proxy.state.posts;
      const { request } = await wallet.deposit(100_000n);
      const result = await call<{ vault_txid: string }>(guardian, 'vault.deposit', request);
      // Sent once (lagging: sent again, and the node's "already in mempool" believed).
      expect(proxy.state.posts).toBe(posts + 1);
      expect(await h.chain.txStatus(result.vault_txid)).not.toBeNull();
      expect(await getGuardianRequest(h.store.db, request.nonce)).toMatchObject({
        state: 'broadcast',
        txid: result.vault_txid,
      });
      expect(await getVaultByPubkey(h.store.db, wallet.vaultPubkey)).toMatchObject({
        vault_txid: result.vault_txid,
        btc_locked: 2_100_000,
      });
      expect(await lockOf(wallet)).toBe(false);
      await depositsAgain(wallet);
    });
  }

  it('settles from the chain, once it answers, a broadcast the network took while it went down', async () => {
    const wallet = await withVault();
    proxy.state.mode = 'swallow';
    const { request } = await wallet.withdraw(100_000n);
    expect(await codeOf(call(guardian, 'vault.withdraw', request))).toBe('chain_unavailable');
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    expect(await h.chain.txStatus(txid!)).not.toBeNull();
    // Nobody spends the vault meanwhile (its lock outlives the usual lease), nor is it failed.
    const lock = await h.store.db
      .selectFrom('guardian_locks')
      .select('expires_at')
      .where('lock_key', '=', vaultLock(wallet.vaultPubkey))
      .executeTakeFirstOrThrow();
    expect(Number(lock.expires_at)).toBe(Number(request.expires_at) + UNANSWERED_BOUND_SECONDS);
    expect((await getGuardianRequest(h.store.db, request.nonce))?.state).toBe('cosigned');
    // Still down: a recovery round leaves it for the next.
    expect(await guardian.recover()).toEqual({ committed: [], rebroadcast: [], failed: [] });
    proxy.state.mode = 'pass';
    expect(await guardian.recover()).toEqual({
      committed: [request.nonce],
      rebroadcast: [],
      failed: [],
    });
    expect((await getVaultByPubkey(h.store.db, wallet.vaultPubkey))?.vault_txid).toBe(txid);
    expect(await lockOf(wallet)).toBe(false);
    await depositsAgain(wallet);
  });

  it('sends again, once the chain answers, a transaction that never reached it', async () => {
    const wallet = await withVault();
    proxy.state.mode = 'post-down';
    const posts = proxy.state.posts;
    const { request } = await wallet.deposit(100_000n);
    expect(await codeOf(call(guardian, 'vault.deposit', request))).toBe('chain_unavailable');
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    expect(await h.chain.txStatus(txid!)).toBeNull();
    proxy.state.mode = 'pass';
    expect(await guardian.recover()).toEqual({
      committed: [request.nonce],
      rebroadcast: [request.nonce],
      failed: [],
    });
    expect(proxy.state.posts).toBe(posts + 1);
    expect(await h.chain.txStatus(txid!)).not.toBeNull();
    await depositsAgain(wallet);
  });

  it('refuses with chain_unavailable while the service is down, and takes the same request again after', async () => {
    const wallet = await withVault();
    const { request } = await wallet.deposit(100_000n);
    for (const mode of ['down', 'reset'] as const) {
      proxy.state.mode = mode;
      expect(await codeOf(call(guardian, 'vault.deposit', request))).toBe('chain_unavailable');
      expect(await getGuardianRequest(h.store.db, request.nonce)).toMatchObject({
        state: 'failed',
        txid: null,
      });
    }
    proxy.state.mode = 'pass';
    const result = await call<{ vault_txid: string }>(guardian, 'vault.deposit', request);
    expect((await getVaultByPubkey(h.store.db, wallet.vaultPubkey))?.vault_txid).toBe(
      result.vault_txid,
    );
    // Broadcast now: the same request is a replay.
    expect(await codeOf(call(guardian, 'vault.deposit', request))).toBe('replayed');
  });

  /**
   * A deposit the network took while the service went silent past the bound: the request is
   * failed and the vault freed, though the transaction is on the chain.
   */
  const silentPastTheBound = async (wallet: TestWallet) => {
    proxy.state.mode = 'swallow';
    const { request } = await wallet.deposit(100_000n);
    expect(await codeOf(call(guardian, 'vault.deposit', request))).toBe('chain_unavailable');
    h.clock.now = Number(request.expires_at) + UNANSWERED_BOUND_SECONDS + 1;
    // A fresh price at the new time, for the quotes of the requests that follow.
    await h.oracle.setPrice(h.oracle.price().priceCents);
    expect((await guardian.recover()).failed).toEqual([request.nonce]);
    expect(await lockOf(wallet)).toBe(false);
    proxy.state.mode = 'pass';
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    await h.devnet.mine(1);
    expect((await h.chain.txStatus(txid!))?.confirmed).toBe(true);
    return txid!;
  };

  it('catches a vault up with our transaction that confirmed after its request failed', async () => {
    const wallet = await withVault();
    const txid = await silentPastTheBound(wallet);
    const stale = await wallet.deposit(5_000n);
    // Built on the output the vault had: refused as changed, not busy, and the vault follows.
    expect(await codeOf(call(guardian, 'vault.deposit', stale.request))).toBe('vault_changed');
    expect(await getVaultByPubkey(h.store.db, wallet.vaultPubkey)).toMatchObject({
      vault_txid: txid,
      btc_locked: 2_100_000,
    });
    await depositsAgain(wallet);
  });

  it('records a vault whose opening confirmed after its request failed unanswered', async () => {
    proxy.state.mode = 'pass';
    const wallet = await h.wallet(`lost ${wallets++}`);
    const { request } = await wallet.open(2_000_000n, 50_000n);
    proxy.state.mode = 'swallow';
    expect(await codeOf(call(guardian, 'vault.open', request))).toBe('chain_unavailable');
    h.clock.now = Number(request.expires_at) + UNANSWERED_BOUND_SECONDS + 1;
    await h.oracle.setPrice(h.oracle.price().priceCents);
    expect((await guardian.recover()).failed).toEqual([request.nonce]);
    expect(await getVaultByPubkey(h.store.db, wallet.vaultPubkey)).toBeNull();
    proxy.state.mode = 'pass';
    await h.devnet.mine(1);
    expect((await guardian.recover()).committed).toEqual([request.nonce]);
    const { txid } = (await getGuardianRequest(h.store.db, request.nonce))!;
    expect(await getVaultByPubkey(h.store.db, wallet.vaultPubkey)).toMatchObject({
      vault_id: txid,
      btc_locked: 2_000_000,
      unit_borrowed: 50_000,
    });
    await depositsAgain(wallet);
  });

  it('liquidates a vault whose stored output our own confirmed transaction spent', async () => {
    const wallet = await withVault();
    const txid = await silentPastTheBound(wallet);
    const vault = (await getVaultByPubkey(h.store.db, wallet.vaultPubkey))!;
    expect(vault.vault_txid).not.toBe(txid);
    // A price under every threshold of this test's vaults.
    const liquidated = await guardian.onPriceTick(100_000, h.clock.now);
    expect(liquidated).toContain(vault.vault_id);
    expect(await getVaultByPubkey(h.store.db, wallet.vaultPubkey)).toMatchObject({
      vault_txid: txid,
      status: 'liquidated',
    });
  });
});
