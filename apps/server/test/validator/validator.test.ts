// The open validator against a real devnet with history seeded through the real guardian: opens,
// deposits, borrows, repays, a withdraw, a sped-up opening, a liquidation and its repossession. A validator started
// with nothing but the devnet's esplora routes rebuilds the same ledger as the app's
// /api/ledger at every height; a row altered in the app's database (not on chain) makes them
// disagree and names the vault; a malformed record on chain is named and skipped.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { base64 } from '@scure/base';
import { p2tr } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSpeedUpPsbt, parseRuneId, signUserInputs } from '@unit/bitcoin';
import type { SpeedUpResult } from '@unit/protocol';
import { registerEsploraRoutes } from '../../src/devnet/esplora-routes';
import { registerLedgerRoute } from '../../src/http/ledger';
import { compareWithApp } from '../../src/validator/compare';
import { runValidator, type ValidatorArgs } from '../../src/validator/cli';
import { getVaultByPubkey } from '../../src/store';
import { signedSpend, testKey } from '../devnet/fixtures';
import {
  call,
  startHarness,
  TREASURY_KEY,
  type Harness,
  type TestWallet,
} from '../guardian/harness';
import { originalOf } from '../guardian/original-tx';

/** The wallet's fee bump of its pending opening, co-signed (as the speed-up suite does it). */
async function speedUpOpening(h: Harness, wallet: TestWallet, opening: string): Promise<string> {
  const originalTx = await originalOf(h.chain, opening);
  const built = buildSpeedUpPsbt({
    action: 'open',
    original: originalTx,
    wallet: wallet.vaultWallet,
    treasury: { script: originalTx.prevouts[0]!.script, internalKey: pubSchnorr(TREASURY_KEY) },
    utxos: await wallet.paymentUtxos(),
    feeRate: 10,
  });
  let psbt = built.psbt;
  for (const index of built.signInputs.user)
    psbt = signUserInputs(psbt, wallet.paymentKey, [index]);
  const result = await call<SpeedUpResult>(h.guardian, 'vault.speedup', {
    original_txid: opening,
    vault_pubkey: wallet.vaultPubkey,
    psbt: base64.encode(psbt),
  });
  return result.vault_txid;
}

describe('open validator', () => {
  let h: Harness;
  let server: FastifyInstance;
  let base: string;
  let alice: TestWallet;
  let bob: TestWallet;
  let replacedOpening: string;

  /** Mines the step's transaction and lets the guardian mark it confirmed. */
  const mined = async () => {
    await h.devnet.mine(1);
    await h.guardian.onBlock();
  };

  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
    const carol = await h.wallet('carol');
    // Alice at 161%: liquidated below 79,650.00 USD; Bob and Carol well collateralised.
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    await mined();
    await call(h.guardian, 'vault.open', (await bob.open(5_000_000n, 10_000n)).request);
    await call(h.guardian, 'vault.open', (await carol.open(2_000_000n, 10_000n)).request);
    await mined();
    await call(h.guardian, 'vault.deposit', (await carol.deposit(500_000n)).request);
    await mined();
    await call(h.guardian, 'vault.borrow', (await carol.borrow(20_000n)).request);
    await mined();
    await call(h.guardian, 'vault.repay', (await carol.repay(5_000n)).request);
    await mined();
    await call(h.guardian, 'vault.withdraw', (await carol.withdraw(100_000n)).request);
    await mined();
    const dave = await h.wallet('dave');
    const opening = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.open',
      (await dave.open(500_000n, 20_000n)).request,
    );
    replacedOpening = await speedUpOpening(h, dave, opening.vault_txid);
    await mined();
    h.clock.now += 10;
    const point = await h.oracle.setPrice(7_900_000);
    await h.guardian.onPriceTick(point.priceCents, point.timestamp);
    const aliceVault = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
    await call(
      h.guardian,
      'vault.repossess',
      (await bob.repossess(alice.vaultPubkey, aliceVault.vault_id)).request,
    );
    await mined();
    server = Fastify();
    registerEsploraRoutes(server, h.devnet, '/esplora', () => true);
    registerLedgerRoute(server, { db: h.store.db, chain: h.chain });
    await server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  const args = async (): Promise<ValidatorArgs> => ({
    chain: `${base}/esplora`,
    treasuryScripts: [p2tr(pubSchnorr(TREASURY_KEY)).script],
    unitRuneId: parseRuneId(h.devnet.unitRuneId),
    serve: null,
    compare: base,
    until: (await h.chain.tip()).height,
    pollMs: 0,
  });

  const appDigest = async (height: number) =>
    ((await (await fetch(`${base}/api/ledger/${height}`)).json()) as { digest: string }).digest;

  it('rebuilds from nothing the digest the app serves, at every height, with no broken rule', async () => {
    const lines: string[] = [];
    const validator = await runValidator(await args(), (line) => lines.push(line));
    const tip = (await h.chain.tip()).height;
    expect(validator.height).toBe(tip + 1);
    for (let height = 0; height <= tip; height++)
      expect(validator.digestAt(height), `height ${height}`).toBe(await appDigest(height));
    // Every vault movement was compared with the app, and it agreed each time.
    expect(lines.filter((l) => l.includes('app agrees')).length).toBeGreaterThanOrEqual(7);
    expect(lines.filter((l) => /DISAGREES|not compared|broken-rule|unparseable/.test(l))).toEqual(
      [],
    );
    const ledger = validator.ledgerAt(tip)!;
    const aliceId = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!.vault_id;
    expect(ledger.find((v) => v.vaultId === aliceId)).toMatchObject({ status: 'repossessed' });
    expect(ledger).toHaveLength(4);
    // The sped-up opening is the vault the chain holds: named by the replacement's txid.
    expect(ledger.map((v) => v.vaultId)).toContain(replacedOpening);
  });

  it('disagrees with an app whose database holds a record the chain does not, naming the vault', async () => {
    const lines: string[] = [];
    const validator = await runValidator(await args(), (line) => lines.push(line));
    const bobRow = (await getVaultByPubkey(h.store.db, bob.vaultPubkey))!;
    await h.store.db
      .updateTable('vault_history')
      .set({ vault_amount: bobRow.btc_locked + 1 })
      .where('transaction_id', '=', bobRow.vault_txid)
      .where('vault_id', '=', bobRow.vault_id)
      .execute();
    const tip = validator.height - 1;
    const comparison = await compareWithApp(base, tip, validator.ledgerAt(tip)!);
    expect(comparison.agree).toBe(false);
    expect(comparison.agree === false && comparison.differences.map((d) => d.vaultId)).toEqual([
      bobRow.vault_id,
    ]);
    expect(await appDigest(tip)).not.toBe(validator.digestAt(tip));
    await h.store.db
      .updateTable('vault_history')
      .set({ vault_amount: bobRow.btc_locked })
      .where('transaction_id', '=', bobRow.vault_txid)
      .where('vault_id', '=', bobRow.vault_id)
      .execute();
    expect(await appDigest(tip)).toBe(validator.digestAt(tip));
  });

  it('names a transaction whose record it cannot read, skips it and goes on', async () => {
    const junk = testKey('validator junk');
    const funding = await h.devnet.fund(junk.address, 100_000n);
    await h.devnet.mine(1);
    let vout = 0;
    while ((await h.chain.output(funding, vout))?.address !== junk.address) vout++;
    // "UNITV", then version 9: no state record has it.
    const bad = new Uint8Array(65);
    bad.set([0x6a, 63, 0x55, 0x4e, 0x49, 0x54, 0x56, 9, 0x64], 0);
    const tx = signedSpend(
      [{ txid: funding, vout, value: 100_000n, key: junk }],
      [
        { script: bad, amount: 0n },
        { script: junk.script, amount: 99_000n },
      ],
    );
    const txid = await h.devnet.broadcast(tx.hex);
    await h.devnet.mine(1);
    const lines: string[] = [];
    const validator = await runValidator(await args(), (line) => lines.push(line));
    expect(lines.filter((l) => l.includes('unparseable'))).toEqual([
      `  unparseable tx ${txid}: unreadable state record`,
    ]);
    const tip = validator.height - 1;
    expect(validator.digestAt(tip)).toBe(await appDigest(tip));
  });
});
