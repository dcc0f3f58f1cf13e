// unit.reserve on a real devnet: the treasury UNIT output handed to an open or a borrow, held by
// the reservation for as long as a wallet prompt may take but never exclusively (a
// treasury no one can starve), and a repay only learns where to send UNIT back.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UNIT_POSTAGE_SATS, type ReserveResult } from '@unit/protocol';
import { getReservation } from '../../src/store';
import { RESERVATION_SECONDS, RESERVATIONS_PER_CONNECTION } from '../../src/cosign/reserve';
import { GUARDIAN_METHODS } from '@unit/protocol/wire';

const reserveSchema = GUARDIAN_METHODS['unit.reserve'].params;
import type { RpcContext } from '../../src/rpc/json-rpc';
import {
  call,
  codeOf,
  recorder,
  START_PRICE_CENTS,
  startHarness,
  type Harness,
  type TestWallet,
} from './harness';

/** A socket's context, as serveJsonRpc hands it to the methods. */
const connection = (address = '203.0.113.7'): RpcContext => ({
  ...recorder(),
  client: { connectionId: randomBytes(12).toString('hex'), address },
});

const randomKey = () => randomBytes(32).toString('hex');

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

  it('hands an open the treasury UNIT output with postage, for as long as a wallet prompt', async () => {
    const reservation = await alice.reserve('open', 50_000);
    expect(RESERVATION_SECONDS).toBeGreaterThanOrEqual(300);
    expect(reservation.expires_at).toBe(h.clock.now + RESERVATION_SECONDS);
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

  it('hands each reservation a free output while there is one, then the least held', async () => {
    const outpoints = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const { treasury_utxo: utxo } = await bob.reserve('open', 1_000);
      outpoints.add(`${utxo!.txid}:${utxo!.vout}`);
    }
    // Seven further outputs, none of them the one alice holds.
    expect(outpoints.size).toBe(7);
    const [first] = await h.chain.unitOutputs(h.guardian.treasuryAddress);
    expect(outpoints.has(`${first!.txid}:${first!.vout}`)).toBe(false);
    // All eight held: a ninth is not refused; it shares an output, and whoever signs first gets it.
    const ninth = await bob.reserve('open', 1_000);
    expect(ninth.treasury_utxo).not.toBeNull();
  });

  it('refuses only an amount no treasury output covers', async () => {
    expect(await codeOf(bob.reserve('open', 10 ** 15))).toBe('insufficient_funds');
  });

  it('caps the live reservations of one connection and releases them when it closes', async () => {
    const socket = connection();
    const reserveOn = (ctx: RpcContext, key = randomKey()) =>
      call<ReserveResult>(
        h.guardian,
        'unit.reserve',
        { unit_amount: 1_000, vault_action: 'open', vault_pubkey: key },
        ctx,
      );
    const held: ReserveResult[] = [];
    for (let i = 0; i < RESERVATIONS_PER_CONNECTION; i++) held.push(await reserveOn(socket));
    expect(await codeOf(reserveOn(socket))).toBe('rate_limited');
    // The same key asking again on its connection replaces its own earlier reservation.
    const key = randomKey();
    const other = connection();
    const replaced = await reserveOn(other, key);
    await reserveOn(other, key);
    expect((await getReservation(h.store.db, replaced.reservation_id))?.status).toBe('released');

    await h.guardian.disconnect(socket.client!);
    for (const r of held)
      expect((await getReservation(h.store.db, r.reservation_id))?.status).toBe('released');
    // A fresh socket starts with its full share.
    expect(await codeOf(reserveOn(connection()))).toBe('ok');
  });

  it('frees the output once the reservation has expired', async () => {
    h.clock.now += RESERVATION_SECONDS + 1;
    const reservation = await bob.reserve('open', 1_000);
    expect(reservation.treasury_utxo).not.toBeNull();
  });

  it('refuses to borrow or repay without a vault', async () => {
    expect(await codeOf(alice.reserve('borrow', 1_000))).toBe('not_found');
    expect(await codeOf(alice.reserve('repay', 1_000))).toBe('not_found');
  });

  it('answers a repay with the treasury address and no treasury output', async () => {
    h.clock.now += RESERVATION_SECONDS + 1;
    // The oracle ticks meanwhile: quotes are priced at a fresh point.
    await h.oracle.setPrice(START_PRICE_CENTS);
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
