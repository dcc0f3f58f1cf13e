// On a real devnet and store: unsigned reservations from many keys take
// nothing from a funded user, and a user who reads the wallet prompt for minutes still opens and
// borrows. (The same flood over the real server's WebSocket: test/guardian/flood.test.ts.)
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReservation, getVaultByPubkey } from '../../src/store';
import type { RpcContext } from '../../src/rpc/json-rpc';
import { call, codeOf, recorder, START_PRICE_CENTS, startHarness, type Harness } from './harness';

describe('a treasury no one can starve (finding 2)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('opens a funded user’s vault on the first try while unsigned reservations flood in', async () => {
    // 24 sockets from 24 addresses, each holding as many reservations as it may, for random keys.
    let held = 0;
    for (let socket = 0; socket < 24; socket++) {
      const ctx: RpcContext = {
        ...recorder(),
        client: { connectionId: `flood-${socket}`, address: `198.51.100.${socket}` },
      };
      for (let i = 0; i < 4; i++) {
        const code = await codeOf(
          call(
            h.guardian,
            'unit.reserve',
            {
              unit_amount: 1_000,
              vault_action: 'open',
              vault_pubkey: randomBytes(32).toString('hex'),
            },
            ctx,
          ),
        );
        if (code === 'ok') held += 1;
      }
    }
    // Every one of the 8 treasury outputs is named by many live reservations.
    expect(held).toBe(96);

    const user = await h.wallet('user');
    const { request } = await user.open(1_000_000n, 50_000n);
    expect(await codeOf(call(h.guardian, 'vault.open', request))).toBe('ok');
    expect((await getVaultByPubkey(h.store.db, user.vaultPubkey))?.status).toBe('active');
    expect((await getReservation(h.store.db, request.reservation_id))?.status).toBe('used');
  });
});

describe('a slow signer (finding 5)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  // Four minutes between the reservation and the signed request: a user reading the prompt.
  const PROMPT_SECONDS = 240;

  it('opens after minutes in the wallet prompt', async () => {
    const slow = await h.wallet('slow');
    const { request } = await slow.open(1_000_000n, 50_000n, { expiresIn: 300 });
    h.clock.now += PROMPT_SECONDS;
    expect(await codeOf(call(h.guardian, 'vault.open', request))).toBe('ok');
  });

  it('borrows after minutes in the wallet prompt', async () => {
    // The oracle ticks meanwhile: quotes are priced at a fresh point.
    await h.oracle.setPrice(START_PRICE_CENTS);
    const slow = await h.wallet('slow borrower');
    await call(h.guardian, 'vault.open', (await slow.open(2_000_000n, 10_000n)).request);
    const { request } = await slow.borrow(5_000n, { expiresIn: 300 });
    h.clock.now += PROMPT_SECONDS;
    expect(await codeOf(call(h.guardian, 'vault.borrow', request))).toBe('ok');
    expect((await getVaultByPubkey(h.store.db, slow.vaultPubkey))?.unit_borrowed).toBe(15_000);
  });
});
