// unit.reserve on a real devnet: the treasury UNIT output handed to an open or a borrow is locked to
// that reservation for 30 s (SPEC §7), and a repay only learns where to send UNIT back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UNIT_POSTAGE_SATS } from '@unit/protocol';
import { getReservation } from '../../src/store';
import { reserveSchema } from '../../src/guardian/schemas';
import { call, codeOf, startHarness, type Harness, type TestWallet } from './harness';

describe('unit.reserve', () => {
  let h: Harness;
  let alice: TestWallet;
  let bob: TestWallet;
  beforeAll(async () => {
    h = await startHarness();
    alice = await h.wallet('alice');
    bob = await h.wallet('bob');
  });
  afterAll(() => h.close());

  it('hands an open the treasury UNIT output with postage, locked for 30 s', async () => {
    const reservation = await alice.reserve('open', 50_000);
    expect(reservation.expires_at).toBe(h.clock.now + 30);
    expect(reservation.postage_sats).toBe(UNIT_POSTAGE_SATS);
    expect(reservation.treasury_address).toBe(h.guardian.treasuryAddress);
    const [treasury] = await h.chain.unitOutputs(h.guardian.treasuryAddress);
    expect(reservation.treasury_utxo).toMatchObject({
      txid: treasury!.txid,
      vout: treasury!.vout,
      unit_amount: treasury!.unit_amount,
      script_hex: treasury!.script_hex,
    });
    expect(await getReservation(h.store.db, reservation.reservation_id)).toMatchObject({
      status: 'active',
      vault_action: 'open',
      unit_amount: 50_000,
    });
  });

  it('hands each concurrent reservation an output of its own, until all 8 are held', async () => {
    const outpoints = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const { treasury_utxo: utxo } = await bob.reserve('open', 1_000);
      outpoints.add(`${utxo!.txid}:${utxo!.vout}`);
    }
    // Seven further outputs, none of them the one alice holds.
    expect(outpoints.size).toBe(7);
    const [first] = await h.chain.unitOutputs(h.guardian.treasuryAddress);
    expect(outpoints.has(`${first!.txid}:${first!.vout}`)).toBe(false);
    expect(await codeOf(bob.reserve('open', 1_000))).toBe('insufficient_funds');
  });

  it('frees the output once the reservation has expired', async () => {
    h.clock.now += 31;
    const reservation = await bob.reserve('open', 1_000);
    expect(reservation.treasury_utxo).not.toBeNull();
  });

  it('refuses to borrow or repay without a vault', async () => {
    expect(await codeOf(alice.reserve('borrow', 1_000))).toBe('not_found');
    expect(await codeOf(alice.reserve('repay', 1_000))).toBe('not_found');
  });

  it('answers a repay with the treasury address and no treasury output', async () => {
    h.clock.now += 31;
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 50_000n)).request);
    const reservation = await alice.reserve('repay', 10_000);
    expect(reservation.treasury_utxo).toBeNull();
    expect(reservation.treasury_address).toBe(h.guardian.treasuryAddress);
  });

  it('accepts only whole non-negative amounts and 32-byte hex keys', () => {
    const params = (unit_amount: number, vault_pubkey = 'ab'.repeat(32)) => ({
      unit_amount,
      vault_action: 'open',
      vault_pubkey,
    });
    fc.assert(fc.property(fc.nat(), (amount) => reserveSchema.safeParse(params(amount)).success));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double().filter((x) => !Number.isInteger(x)),
          fc.integer({ max: -1 }),
        ),
        (amount) => !reserveSchema.safeParse(params(amount)).success,
      ),
    );
    fc.assert(
      fc.property(
        fc.string().filter((key) => !/^[0-9a-f]{64}$/i.test(key)),
        (key) => !reserveSchema.safeParse(params(1, key)).success,
      ),
    );
  });
});
