// Uncooperative timing on a real devnet and store: a price drop
// while a deposit is in flight, the same signed request sent twice at once (to one guardian and to
// two guardians over one database, as several server instances run), and junk requests naming a
// victim's vault. The flow suite runs these on SQLite and again on PostgreSQL (FLOW_DATABASE_URL),
// where requests truly interleave; each alone and with a guardian network in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { randomBytes } from 'node:crypto';
import type { Chain } from '../../src/chain/port';
import {
  getGuardianRequest,
  getLiquidation,
  getReservation,
  getVaultByPubkey,
} from '../../src/store';
import type { Guardian } from '../../src/cosign';
import { LOCK_SECONDS } from '../../src/cosign/locks';
import {
  call,
  codeOf,
  recorder,
  startHarness,
  type Harness,
  type HarnessSigning,
  type TestWallet,
} from './harness';
import { loadGuardianNetwork, networkSigner } from '../../src/network-client/network-signer';
import { startGuardianNetwork, type TestGuardianNetwork } from '../guardian-network/signer-harness';

/** A chain whose next broadcast (or output read) waits until the test lets it go. */
function gatedChain(method: 'broadcast' | 'output' = 'broadcast') {
  let entered!: () => void;
  let release!: () => void;
  const state = {
    armed: false,
    entered: new Promise<void>((resolve) => (entered = resolve)),
    released: new Promise<void>((resolve) => (release = resolve)),
    release: () => release(),
  };
  const wrap = (chain: Chain): Chain => {
    const gated = Object.create(chain) as Chain;
    const gate = async () => {
      if (state.armed) {
        state.armed = false;
        entered();
        await state.released;
      }
    };
    if (method === 'broadcast')
      gated.broadcast = async (rawHex: string) => {
        await gate();
        return chain.broadcast(rawHex);
      };
    else
      gated.output = async (txid: string, vout: number) => {
        await gate();
        return chain.output(txid, vout);
      };
    return gated;
  };
  return { state, wrap };
}

/**
 * Every race alone (this server's own guardian key) and again with a 2-of-3 guardian network in
 * place: three guardian processes from a real DKG, approving every request (the races are the
 * app's: its locks, records and sweep), and the app's own network signer co-signing every guardian
 * input through them. One network for the file; each harness a devnet whose treasury is the group's.
 */
const SIGNING = [
  ['signing alone', false],
  ['with a 2-of-3 guardian network', true],
] as const;

describe.each(SIGNING)('%s', (_name, withNetwork) => {
  let network: TestGuardianNetwork | undefined;
  let signing: HarnessSigning | undefined;
  beforeAll(async () => {
    if (!withNetwork) return;
    network = await startGuardianNetwork({ policy: 'approve-all' });
    const files = loadGuardianNetwork(network.dir);
    signing = { signer: networkSigner(files), groupKey: hex.decode(files.set.groupKey!) };
  });
  afterAll(() => network?.close());
  const start = (wrap?: (chain: Chain) => Chain) => startHarness(wrap, signing);

  describe('a price drop while a deposit is in flight (finding 1)', () => {
    let h: Harness;
    let alice: TestWallet;
    const gate = gatedChain();
    beforeAll(async () => {
      h = await start(gate.wrap);
      alice = await h.wallet('alice');
      // 161%: threshold 79,650.00 USD.
      await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    });
    afterAll(() => h.close());

    it('never liquidates at a threshold the vault output no longer commits to', async () => {
      // With the network, the vaults commit to its group key: only its guardians can co-sign.
      if (signing) expect(h.guardian.guardPubkey).toBe(hex.encode(signing.groupKey));
      const before = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
      expect(before.threshold_cents).toBe(7_965_000);
      const { request } = await alice.deposit(500_000n);
      gate.state.armed = true;
      const ctx = recorder();
      const deposit = codeOf(call(h.guardian, 'vault.deposit', request, ctx));
      // Co-signed (step 4 at least) and about to broadcast: now the price reaches the old threshold.
      await gate.state.entered;
      expect(ctx.steps).toContain(3);
      const point = await h.oracle.setPrice(7_965_000);
      const duringFlight = await h.guardian.onPriceTick(point.priceCents, point.timestamp);
      // Another guardian over the same database (a second server instance) sweeps too.
      const duringFlightElsewhere = await h
        .restart()
        .onPriceTick(point.priceCents, point.timestamp);
      gate.state.release();
      expect(await deposit).toBe('ok');
      expect(duringFlight).toEqual([]);
      expect(duringFlightElsewhere).toEqual([]);

      const after = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
      expect(after.status).toBe('active');
      expect(after.threshold_cents).toBeLessThan(before.threshold_cents);
      expect(await getLiquidation(h.store.db, after.vault_id)).toBeNull();
      // The next tick judges the vault by its new threshold: still safe at this price.
      expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toEqual([]);

      // At the new threshold it is liquidated, and the record opens the output the vault has.
      const drop = await h.oracle.setPrice(after.threshold_cents);
      expect(await h.guardian.onPriceTick(drop.priceCents, drop.timestamp)).toEqual([
        after.vault_id,
      ]);
      const record = (await getLiquidation(h.store.db, after.vault_id))!;
      expect(record.threshold_cents).toBe(after.threshold_cents);
      expect(h.oracle.revealedSecret(BigInt(after.threshold_cents), after.stamp)).not.toBeNull();
    });
  });

  describe('a request whose lock ran out while it was being checked (finding 1)', () => {
    let h: Harness;
    let alice: TestWallet;
    const gate = gatedChain('output');
    beforeAll(async () => {
      h = await start(gate.wrap);
      alice = await h.wallet('alice');
      await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    });
    afterAll(() => h.close());

    it('is refused with vault_changed and never broadcast once the sweep took the vault', async () => {
      const before = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
      const { request } = await alice.deposit(500_000n, { expiresIn: 300 });
      const ctx = recorder();
      const deposit = codeOf(
        call(h.guardian, 'vault.deposit', request, {
          ...ctx,
          notify: (method, params) => {
            ctx.notify(method, params);
            // Recorded and holding the vault's lock: its next chain read (the vault output) waits.
            if ((params as { step: number }).step === 2) gate.state.armed = true;
          },
        }),
      );
      await gate.state.entered;
      // The request stalls past its lock's lifetime; the sweep may then take the vault, and does.
      h.clock.now += LOCK_SECONDS + 1;
      const point = await h.oracle.setPrice(before.threshold_cents);
      expect(await h.guardian.onPriceTick(point.priceCents, point.timestamp)).toEqual([
        before.vault_id,
      ]);
      gate.state.release();
      expect(await deposit).toBe('vault_changed');

      // Nothing reached the network: the vault output is the one the liquidation record opens.
      expect((await h.chain.output(before.vault_txid, before.vault_vout))?.spent).toBe(false);
      expect((await getLiquidation(h.store.db, before.vault_id))?.threshold_cents).toBe(
        before.threshold_cents,
      );
      expect((await getGuardianRequest(h.store.db, request.nonce))?.state).toBe('failed');
    });
  });

  describe('the same signed borrow sent twice at once (finding 3)', () => {
    let h: Harness;
    let alice: TestWallet;
    let second: Guardian;
    beforeAll(async () => {
      h = await start();
      alice = await h.wallet('alice');
      second = h.restart();
      await call(h.guardian, 'vault.open', (await alice.open(2_000_000n, 10_000n)).request);
    });
    afterAll(() => h.close());

    const sendTwice = async (to: [Guardian, Guardian]) => {
      const before = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
      const { request } = await alice.borrow(5_000n);
      const codes = await Promise.all(to.map((g) => codeOf(call(g, 'vault.borrow', request))));
      const after = (await getVaultByPubkey(h.store.db, alice.vaultPubkey))!;
      return { codes, before, after, request };
    };

    it('lets the original through on one guardian; the copy is refused and frees nothing', async () => {
      const { codes, before, after, request } = await sendTwice([h.guardian, h.guardian]);
      // Which copy takes the vault's lock first is the database's call; exactly one goes through.
      expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
      expect(codes.filter((c) => c === 'vault_busy' || c === 'replayed')).toHaveLength(1);
      expect(after.unit_borrowed).toBe(before.unit_borrowed + 5_000);
      expect((await getReservation(h.store.db, request.reservation_id))?.status).toBe('used');
      expect((await getGuardianRequest(h.store.db, request.nonce))?.state).toBe('broadcast');
    });

    it('lets exactly one through across two guardians over one database', async () => {
      const { codes, before, after } = await sendTwice([h.guardian, second]);
      expect(codes.filter((c) => c === 'ok')).toHaveLength(1);
      expect(codes.filter((c) => c === 'vault_busy' || c === 'replayed')).toHaveLength(1);
      expect(after.unit_borrowed).toBe(before.unit_borrowed + 5_000);
    });
  });

  describe('junk requests naming a victim’s vault (finding 4)', () => {
    let h: Harness;
    let victim: TestWallet;
    let mallory: TestWallet;
    beforeAll(async () => {
      h = await start();
      victim = await h.wallet('victim');
      mallory = await h.wallet('mallory');
      await call(h.guardian, 'vault.open', (await victim.open(1_000_000n, 10_000n)).request);
      await call(h.guardian, 'vault.open', (await mallory.open(1_000_000n, 10_000n)).request);
    });
    afterAll(() => h.close());

    it('refuses junk before locking anything, so the victim’s deposits go through', async () => {
      for (let round = 0; round < 4; round++) {
        const { request } = await victim.deposit(50_000n);
        // A real, signed withdraw of Mallory's own vault, re-addressed to the victim's key.
        const forged = (await mallory.withdraw(20_000n)).request;
        const junk = [
          ...Array.from({ length: 6 }, () => ({
            ...request,
            nonce: hex.encode(randomBytes(16)),
            psbt: base64.encode(randomBytes(300)),
            payload: { change_amount: 10_000, tx_feerate: 2 },
          })),
          { ...forged, vault_pubkey: victim.vaultPubkey, nonce: hex.encode(randomBytes(16)) },
        ];
        // The junk goes first, each call running up to its first wait before the deposit starts.
        const refused = junk.map((j) => codeOf(call(h.guardian, 'vault.withdraw', j)));
        const deposit = codeOf(call(h.guardian, 'vault.deposit', request));
        expect(await deposit).toBe('ok');
        const codes = await Promise.all(refused);
        expect(codes.slice(0, 6)).toEqual(Array(6).fill('bad_transaction'));
        expect(codes[6]).toBe('bad_signature');
        // Nothing of the junk was recorded: it never got as far as the nonce or the lock.
        for (const j of junk) expect(await getGuardianRequest(h.store.db, j.nonce)).toBeNull();
      }
    });
  });
});
