// A vault left to its term with the network running, end to end: the real app coordinating a real
// 2-of-3 set of `--policy vault` guardian processes (each reading the app's devnet chain and price
// itself). Before the term each guardian refuses the settlement on its own chain; once the devnet
// is mined past the term with no action, the app's 'term-settlement' leader job signs it through
// the guardians and sends it, and the chain shows exactly what the design promises, to the sat: the
// debt repaid from the collateral at the quorum's price with the liquidation tax to the treasury
// (`OP_1 <group key>`), the rest less the fee to the owner's own key, and the vault `settled` with
// its history record `s`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { OutScript, TEST_NETWORK } from '@scure/btc-signer';
import { ownerPayoutScript, parseRuneId } from '@unit/bitcoin';
import { loadIdentity } from '@unit/guardian-net';
import { REPOSSESSION_TAX_PERCENT, SETTLEMENT_MAX_FEE_RATE, SATS_PER_BTC } from '@unit/protocol';
import type { RunningApp } from '../support';
import { call, type Harness } from '../guardian/harness';
import {
  getVault,
  getVaultByPubkey,
  migrateToLatest,
  openStore,
  type VaultRow,
} from '../../src/store';
import { devnetMigrations } from '../../src/devnet/migrations';
import { guardianMigrations } from '../../src/cosign';
import { treasuryOutputOf } from '../../src/cosign/treasury-output';
import { NetworkLeaves } from '../../src/operator/vault-leaves';
import { reindexFromChain, timedFetch } from '../../src/operator/reindex';
import { prepareSettlement } from '../../src/cosign/term-settle';
import { settlementFeeRate } from '../../src/cosign/term-settle-round';
import { settlementQuote } from '../../src/jobs/term-settlement';
import { settlementCosigner, SettlementRefused } from '../../src/network-client/settle-cosign';
import { Validator } from '../../src/validator/follow';
import { EsploraBlockSource } from '../../src/validator/esplora-source';
import { onChain, startVaultPolicyWorld, type TestGuardianNetwork } from './signer-harness';
import type { GuardianSet } from '@unit/guardian-net';

const PRICE_CENTS = 9_500_000n;
const DEBT_CENTS = 50_000n;
const COLLATERAL = 1_000_000n;

describe('a vault that reaches its term with the guardian network running', () => {
  let network: TestGuardianNetwork;
  let unit: RunningApp;
  let h: Harness;
  let set: GuardianSet;
  let group: Uint8Array;
  let vault: VaultRow;

  beforeAll(async () => {
    ({ network, unit, h, set } = await startVaultPolicyWorld());
    group = hex.decode(set.groupKey!);
    const owner = await h.wallet('owner');
    await call(unit.guardian, 'vault.open', (await owner.open(COLLATERAL, DEBT_CENTS)).request);
    await unit.devnet!.mine(1);
    vault = (await getVaultByPubkey(unit.store.db, owner.vaultPubkey))!;
  }, 180_000);
  afterAll(async () => {
    await unit?.stop();
    await network?.close();
  });

  /** The settlement the app would ask for now, planned from the vault's row against the chain. */
  async function planNow() {
    const quote = await settlementQuote(unit.oracle);
    const { plan, request } = await prepareSettlement(
      {
        chain: unit.chain,
        thresholdHashes: (th, stamp) => unit.oracle.thresholdHashes(th, stamp),
        network: TEST_NETWORK,
      },
      vault,
      {
        guardPubkey: group,
        priceCents: BigInt(quote.price_cents),
        treasuryScript: OutScript.encode({ type: 'tr', pubkey: group }),
        feeRate: 2,
      },
    );
    return { plan, request, quote };
  }

  it('is refused by every guardian before its term, each on its own chain', async () => {
    expect(vault.status).toBe('active');
    expect(vault.settle_height).not.toBeNull();
    expect((await unit.chain.tip()).height).toBeLessThan(vault.settle_height!);
    const sign = settlementCosigner(
      set,
      loadIdentity(join(network.dir, 'coordinator', 'identity.json')),
    );
    const { plan, request, quote } = await planNow();
    const refused = await sign({ plan, request, vaultPubkey: vault.vault_pubkey, quote }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SettlementRefused);
    expect((refused as Error).message).toMatch(/waits for the term/);
    // The app's own job settles nothing before the term either.
    await unit.devnet!.mine(1);
    expect((await getVault(unit.store.db, vault.vault_id))?.status).toBe('active');
  }, 120_000);

  it('is settled by the leader job once the chain passes its term, to the sat', async () => {
    while ((await unit.chain.tip()).height < vault.settle_height!) await unit.devnet!.mine(1);
    // Each block wakes the job; wait for the vault to close.
    const deadline = Date.now() + 90_000;
    let row = await getVault(unit.store.db, vault.vault_id);
    while (row?.status !== 'settled') {
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 500));
      row = await getVault(unit.store.db, vault.vault_id);
    }
    expect(row).toMatchObject({ btc_locked: 0, unit_borrowed: 0 });
    const history = await unit.store.db
      .selectFrom('vault_history')
      .selectAll()
      .where('vault_id', '=', vault.vault_id)
      .where('action', '=', 's')
      .execute();
    expect(history).toHaveLength(1);
    const record = history[0]!;
    expect(record).toMatchObject({
      ...{ btc_amt: Number(COLLATERAL), unit_amt: Number(DEBT_CENTS), vault_amount: 0 },
      ...{ amount_borrowed: 0, oracle_price: Number(PRICE_CENTS / 100n) },
    });
    // The chain's own script check of the guardians' signature on the settlement leaf.
    const { tx } = await onChain(unit, record.transaction_id);
    expect(tx.inputsLength).toBe(1);
    expect(hex.encode(tx.getInput(0).txid!)).toBe(vault.vault_txid);
    expect(tx.lockTime).toBe(vault.settle_height);
    // 500 UNIT at $95,000: 526,316 sats (rounded up) and 15% of it, 78,947 sats (rounded down).
    const debtSats = (DEBT_CENTS * SATS_PER_BTC + PRICE_CENTS - 1n) / PRICE_CENTS;
    const taxSats = (debtSats * BigInt(REPOSSESSION_TAX_PERCENT)) / 100n;
    expect([debtSats, taxSats]).toEqual([526_316n, 78_947n]);
    const treasury = tx.getOutput(0);
    const owner = tx.getOutput(1);
    expect(treasury.script).toEqual(OutScript.encode({ type: 'tr', pubkey: group }));
    expect(treasury.amount).toBe(debtSats + taxSats);
    expect(owner.script).toEqual(ownerPayoutScript(hex.decode(vault.vault_pubkey)));
    const fee = COLLATERAL - treasury.amount! - owner.amount!;
    const vsize = BigInt(Math.ceil(tx.weight / 4));
    // The owner's rest is the collateral less the treasury's part and the fee: the network's hour
    // rate (whole sat/vB) for the signed size, within the settlement's cap.
    const rate = BigInt(settlementFeeRate((await unit.chain.fees()).hourFee));
    expect(fee).toBe(rate * vsize);
    expect(rate).toBeLessThanOrEqual(BigInt(SETTLEMENT_MAX_FEE_RATE));
    expect(owner.amount).toBe(COLLATERAL - debtSats - taxSats - rate * vsize);
    expect(record.utxo).toBe(`${record.transaction_id}:1`);
    // The request the job stored before it sent, committed.
    const request = await unit.store.db
      .selectFrom('guardian_requests')
      .selectAll()
      .where('txid', '=', record.transaction_id)
      .executeTakeFirstOrThrow();
    expect(request).toMatchObject({ method: 'term.settle', state: 'broadcast' });
  }, 150_000);

  it('is rebuilt as settled by an open validator from the chain alone, as the app serves it', async () => {
    await unit.devnet!.mine(1);
    const tip = (await unit.chain.tip()).height;
    const validator = new Validator(new EsploraBlockSource(`${unit.url}/esplora`), {
      treasuryScripts: [OutScript.encode({ type: 'tr', pubkey: group })],
      unitRuneId: parseRuneId(unit.devnet!.unitRuneId),
    });
    await validator.catchUp(() => undefined, tip);
    expect(validator.ledgerAt(tip)?.find((v) => v.vaultId === vault.vault_id)).toEqual({
      ...{ vaultId: vault.vault_id, collateralSats: 0n, debt: 0n },
      status: 'settled',
    });
    const app = (await (await fetch(`${unit.url}/api/ledger/${tip}`)).json()) as { digest: string };
    expect(validator.digestAt(tip)).toBe(app.digest);
  }, 120_000);

  it('is rebuilt as settled by a reindex from the chain on an empty database', async () => {
    const store = await openStore({ file: ':memory:' });
    try {
      await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
      const result = await reindexFromChain({
        db: store.db,
        esploraUrl: `${unit.url}/esplora`,
        fetch: timedFetch,
        treasuryAddresses: [
          treasuryOutputOf(
            { treasuryPubkey: set.groupKey!, treasuryIsGroupKey: true },
            TEST_NETWORK,
          ).address,
        ],
        leaves: new NetworkLeaves({ sets: [set], db: store.db, network: TEST_NETWORK }),
        now: () => Math.floor(Date.now() / 1000),
        log: { info: () => undefined, warn: () => undefined },
      });
      expect(result.restored).toContain(vault.vault_id);
      expect(await getVault(store.db, vault.vault_id)).toMatchObject({
        ...{ status: 'settled', btc_locked: 0, unit_borrowed: 0 },
        settle_height: vault.settle_height,
      });
      const [app, rebuilt] = await Promise.all(
        [unit.store, store].map((s) =>
          s.db
            .selectFrom('vault_history')
            .select(['action', 'btc_amt', 'unit_amt', 'vault_amount', 'oracle_price'])
            .select(['transaction_id', 'utxo', 'utxo_script'])
            .where('vault_id', '=', vault.vault_id)
            .where('action', '=', 's')
            .execute(),
        ),
      );
      // The same record as the app wrote, the price told from the treasury's part to the dollar.
      expect(rebuilt).toEqual(app);
    } finally {
      await store.close();
    }
  }, 120_000);
});
