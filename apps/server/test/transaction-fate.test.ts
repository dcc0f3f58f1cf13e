// GET /api/transactions/:txid on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set:
// a co-signed transaction waits until a confirmed record holds it, a failed request says why (a
// repossession the owner's exit beat, one whose input was spent, any other reason, bounded), an
// unknown txid is a 404, a malformed one a 400 before any read, and the reads are rate limited.
import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { transactionFateSchema } from '@unit/protocol/wire';
import { guardianMigrations } from '../src/cosign/migrations';
import { installErrorHandling } from '../src/http/errors';
import {
  registerTransactionFateRoute,
  TRANSACTION_FATE_READS_PER_MINUTE,
} from '../src/http/transaction-fate';
import {
  appendVaultHistory,
  EXIT_WON_REASON,
  INPUT_SPENT_REASON,
  insertVault,
  type Database,
} from '../src/store';
import type { GuardianRequestState } from '../src/store/schema';
import { storeDialects, storePerTest, termedVaultRow } from './dialect-stores';

const txidOf = (n: number) => n.toString(16).padStart(64, '0');

async function request(
  db: Kysely<Database>,
  n: number,
  state: GuardianRequestState,
  error: string | null = null,
  updatedAt = 1,
) {
  await db
    .insertInto('guardian_requests')
    .values({
      ...{ nonce: `n${n}-${updatedAt}`, method: 'vault.deposit', vault_id: null },
      ...{ vault_pubkey: 'ab'.repeat(32), state, txid: txidOf(n), raw_hex: '00', error },
      ...{ expires_at: 1, created_at: 1, updated_at: updatedAt },
    })
    .execute();
}

async function record(db: Kysely<Database>, n: number, confirmed: boolean) {
  await appendVaultHistory(db, {
    ...{ vault_id: termedVaultRow(1).vault_id, timestamp: 5, action: 'd', btc_amt: 10 },
    ...{ unit_amt: 0, vault_amount: 1_010, amount_borrowed: 0, oracle_price: 1 },
    ...{ transaction_id: txidOf(n), confirmed: confirmed ? 1 : 0 },
    ...{ utxo: `${txidOf(n)}:0`, utxo_script: '51' },
    ...{ liquidation_hash: null, liquidation_threshold: null },
  });
}

describe.each(storeDialects('fate'))('GET /api/transactions/:txid on %s', (_, open) => {
  const openedStore = storePerTest(open, guardianMigrations);
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  async function serve(limited = false) {
    const store = await openedStore();
    app = Fastify();
    installErrorHandling(app);
    if (limited) await app.register(rateLimit, { global: false });
    registerTransactionFateRoute(app, store.db);
    await insertVault(store.db, termedVaultRow(1));
    const server = app;
    const get = async (txid: string) => {
      const res = await server.inject({ method: 'GET', url: `/api/transactions/${txid}` });
      return { status: res.statusCode, body: res.json() as Record<string, unknown> };
    };
    return { db: store.db, get };
  }

  it('answers pending until a confirmed record holds the transaction, then confirmed', async () => {
    const { db, get } = await serve();
    await request(db, 1, 'cosigned');
    await request(db, 2, 'broadcast');
    await record(db, 2, false);
    await request(db, 3, 'broadcast');
    await record(db, 3, true);
    const pending = { status: 'pending', cause: null, reason: null };
    expect(await get(txidOf(1))).toEqual({ status: 200, body: { txid: txidOf(1), ...pending } });
    expect((await get(txidOf(2))).body).toEqual({ txid: txidOf(2), ...pending });
    const confirmed = await get(txidOf(3).toUpperCase());
    expect(confirmed.body).toEqual({ ...pending, txid: txidOf(3), status: 'confirmed' });
    expect(transactionFateSchema.parse(confirmed.body)).toEqual(confirmed.body);
  });

  it('says why a request failed: the exit, a spent input, or its own words cut short', async () => {
    const { db, get } = await serve();
    await request(db, 1, 'failed', EXIT_WON_REASON);
    await request(db, 2, 'failed', INPUT_SPENT_REASON);
    await request(db, 3, 'failed', `refused: ${'x'.repeat(500)}`);
    await request(db, 4, 'failed', null);
    const failed = (cause: string, reason: string | null) => ({ status: 'failed', cause, reason });
    expect((await get(txidOf(1))).body).toEqual({
      txid: txidOf(1),
      ...failed('exit', EXIT_WON_REASON),
    });
    expect((await get(txidOf(2))).body).toMatchObject(failed('input_spent', INPUT_SPENT_REASON));
    const other = (await get(txidOf(3))).body;
    expect(other).toMatchObject({ status: 'failed', cause: 'other' });
    expect(other.reason).toBe(`refused: ${'x'.repeat(191)}`);
    expect((await get(txidOf(4))).body).toMatchObject(failed('other', null));
  });

  it('reads the newest request of a txid: a failed attempt taken again is pending', async () => {
    const { db, get } = await serve();
    await request(db, 1, 'failed', 'refused', 1);
    await request(db, 1, 'broadcast', null, 2);
    expect((await get(txidOf(1))).body).toMatchObject({ status: 'pending' });
  });

  it('answers 404 for a txid it never co-signed and 400 for one that is not a txid', async () => {
    const { get } = await serve();
    expect(await get(txidOf(9))).toMatchObject({ status: 404, body: { code: 'not_found' } });
    for (const bad of ['abc', `${txidOf(1)}00`, 'zz'.repeat(32)])
      expect((await get(bad)).status).toBe(400);
  });

  it('is rate limited per client address', async () => {
    const { get } = await serve(true);
    for (let i = 0; i < TRANSACTION_FATE_READS_PER_MINUTE; i++)
      expect((await get(txidOf(9))).status).toBe(404);
    expect((await get(txidOf(9))).status).toBe(429);
  });
});
