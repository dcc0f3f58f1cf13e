// GET /api/vaults/:vaultId/liquidation on a real devnet: the owner's page reads at what price the
// vault was liquidated and, after a repossess, which vault claimed it with which transaction.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VaultLiquidationDto } from '@unit/protocol';
import { installErrorHandling } from '../../src/http/errors';
import { registerLiquidationRoutes } from '../../src/http/liquidation';
import { getVaultByPubkey, vaultHistory, type VaultRow } from '../../src/store';
import { call, codeOf, startHarness, type Harness, type TestWallet } from './harness';

describe('GET /api/vaults/:vaultId/liquidation', () => {
  let h: Harness;
  let app: FastifyInstance;
  let alice: TestWallet;
  let bob: TestWallet;
  let aliceVault: VaultRow;
  const get = async (vaultId: string) => {
    const res = await app.inject({ method: 'GET', url: `/api/vaults/${vaultId}/liquidation` });
    return { status: res.statusCode, body: res.json() as VaultLiquidationDto };
  };

  beforeAll(async () => {
    h = await startHarness();
    app = Fastify();
    installErrorHandling(app);
    registerLiquidationRoutes(app, h.store.db);
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    // Alice at 161%: threshold 79,650.00 USD; Bob well collateralised.
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    await call(h.guardian, 'vault.open', (await bob.open(5_000_000n, 10_000n)).request);
    aliceVault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  it('answers 404 for a vault never liquidated', async () => {
    expect((await get(aliceVault.vault_id)).status).toBe(404);
  });

  it('tells the oracle price and the state at liquidation, then the claimant', async () => {
    h.clock.now += 10;
    const point = await h.oracle.setPrice(7_900_000);
    await h.guardian.onPriceTick(point.priceCents, point.timestamp);
    const pending = await get(aliceVault.vault_id);
    expect(pending).toEqual({
      status: 200,
      body: {
        vault_id: aliceVault.vault_id,
        liquidated_at: point.timestamp,
        threshold_cents: 7_965_000,
        price_cents: 7_900_000,
        btc_locked: 1_000_000,
        unit_borrowed: 59_000,
        status: 'liquidated',
        claimant: null,
        claim_txid: null,
      },
    });

    const { request } = await bob.repossess(alice.vaultPubkey, aliceVault.vault_id);
    const { vault_txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.repossess',
      request,
    );
    const bobVault = (await getVaultByPubkey(h.store.db, bob.vaultPubkey))!;
    const claimed = await get(aliceVault.vault_id);
    expect(claimed.body).toMatchObject({
      status: 'repossessed',
      claimant: { vault_id: bobVault.vault_id, vault_tag: bobVault.vault_tag, name: bobVault.name },
      claim_txid: vault_txid,
    });
  });

  it('lets the owner of a repossessed vault open a new one with the same key', async () => {
    // docs/protocol.md, Vault keys: one live vault per key; a repossessed vault is closed.
    const { request } = await alice.open(1_000_000n, 20_000n);
    const { vault_id } = await call<{ vault_id: string }>(h.guardian, 'vault.open', request);
    expect(vault_id).not.toBe(aliceVault.vault_id);
    // The key's vault is the new one; the old one keeps its outcome and its history.
    expect(await getVaultByPubkey(h.store.db, alice.vaultPubkey)).toMatchObject({
      vault_id,
      status: 'active',
      btc_locked: 1_000_000,
      unit_borrowed: 20_000,
    });
    expect((await get(aliceVault.vault_id)).body.status).toBe('repossessed');
    expect((await vaultHistory(h.store.db, aliceVault.vault_id)).map((r) => r.action)).toContain(
      'x',
    );
    // Its history starts fresh.
    expect((await vaultHistory(h.store.db, vault_id)).map((r) => r.action)).toEqual(['o']);
    // The new vault's page reaches the closed one.
    const closed = await app.inject({
      method: 'GET',
      url: `/api/vaults/by-pubkey/${alice.vaultPubkey}/closed`,
    });
    expect(closed.json()).toEqual([
      {
        vault_id: aliceVault.vault_id,
        vault_tag: aliceVault.vault_tag,
        name: aliceVault.name,
        created_at: Number(aliceVault.created_at),
      },
    ]);
    // One live vault: a further open with the key is refused.
    expect(await codeOf(alice.reserve('open', 10_000))).toBe('vault_exists');
  });

  it("refuses a new vault while the key's liquidated vault awaits a claimant", async () => {
    const carol = await h.wallet('carol');
    // 175% at 79,000 USD: threshold 60,750.00 USD.
    await call(h.guardian, 'vault.open', (await carol.open(1_000_000n, 45_000n)).request);
    const carolVault = (await getVaultByPubkey(h.store.db, carol.vaultPubkey))!;
    h.clock.now += 10;
    const point = await h.oracle.setPrice(6_000_000);
    expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toContain(
      carolVault.vault_id,
    );
    await expect(carol.reserve('open', 10_000)).rejects.toThrow(
      /liquidated and has not been repossessed yet/,
    );
    expect((await getVaultByPubkey(h.store.db, carol.vaultPubkey))?.vault_id).toBe(
      carolVault.vault_id,
    );
  });
});
