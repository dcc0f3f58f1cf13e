// GET /api/vaults/:vaultId/liquidation on a real devnet: the owner's page reads at what price the
// vault was liquidated and, after a repossess, which vault claimed it with which transaction.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VaultLiquidationDto } from '@unit/protocol';
import { installErrorHandling } from '../../src/http/errors';
import { registerLiquidationRoutes } from '../../src/http/liquidation';
import { getVaultByPubkey, type VaultRow } from '../../src/store';
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

  it('keeps one vault per key: the owner of a repossessed vault opens the next with another key', async () => {
    // docs/protocol.md: the page tells the owner so rather than offering an open that must fail.
    expect(await codeOf(alice.reserve('open', 10_000))).toBe('vault_exists');
  });
});
