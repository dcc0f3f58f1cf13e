// GET /api/network's report of the open validators it is configured with: a real validator
// following the devnet's esplora routes and serving its digest (`--serve`), a validator that holds
// every connection, and a URL nothing listens at. The app compares at a height both have read:
// agrees while its database is the chain's, disagrees (naming the height and both digests) once
// a row of its database is altered, and calls the other two unreachable, each with why.
import Fastify, { type FastifyInstance } from 'fastify';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { p2tr } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuneId } from '@unit/bitcoin';
import { guardianNetworkSchema } from '@unit/protocol/wire';
import { registerEsploraRoutes } from '../../src/devnet/esplora-routes';
import { registerLedgerRoute } from '../../src/http/ledger';
import { registerNetworkRoutes } from '../../src/http/network-routes';
import { validatorAgreement } from '../../src/http/validator-agreement';
import { EsploraBlockSource } from '../../src/validator/esplora-source';
import { Validator } from '../../src/validator/follow';
import { serveLedger } from '../../src/validator/serve';
import { getVaultByPubkey } from '../../src/store';
import { freePorts } from '../../../../packages/guardian-net/test/harness';
import { call, startHarness, TREASURY_KEY, type Harness } from '../guardian/harness';

let h: Harness;
let app: FastifyInstance;
let base: string;
let validator: Validator;
let aliceKey: string;
const servers: http.Server[] = [];
let urls: { real: string; hung: string; dead: string };

const listening = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );

beforeAll(async () => {
  h = await startHarness();
  const alice = await h.wallet('alice');
  aliceKey = alice.vaultPubkey;
  await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 20_000n)).request);
  await h.devnet.mine(1);
  await h.guardian.onBlock();
  await call(h.guardian, 'vault.borrow', (await alice.borrow(5_000n)).request);
  await h.devnet.mine(1);
  await h.guardian.onBlock();
  const port = await freePorts(2);
  base = `http://127.0.0.1:${port}`;
  validator = new Validator(new EsploraBlockSource(`${base}/esplora`), {
    treasuryScripts: [p2tr(pubSchnorr(TREASURY_KEY)).script],
    unitRuneId: parseRuneId(h.devnet.unitRuneId),
  });
  const real = serveLedger(validator, 0);
  const hung = http.createServer(() => {}); // accepts, never answers
  servers.push(real, hung);
  await new Promise<void>((r) => real.once('listening', () => r()));
  urls = {
    real: `http://127.0.0.1:${(real.address() as AddressInfo).port}`,
    hung: await listening(hung),
    dead: `http://127.0.0.1:${port + 1}`,
  };
  app = Fastify();
  registerEsploraRoutes(app, h.devnet, '/esplora', () => true);
  const ledgerAt = registerLedgerRoute(app, { db: h.store.db, chain: h.chain });
  const agreement = validatorAgreement(
    [urls.real, urls.hung, urls.dead],
    {
      tip: async () => (await h.chain.tip()).height,
      digestAt: async (height) => (await ledgerAt(height)).digest,
    },
    { cacheMs: 0, timeoutMs: 500 },
  );
  const off = { mode: 'off' as const, dir: '', n: 1, t: 1, basePort: 0 };
  registerNetworkRoutes(app, off, 'ab'.repeat(32), { cacheMs: 0, validators: agreement });
  await app.listen({ port, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await app?.close();
  await h?.close();
});

const validators = async () => {
  const res = await fetch(`${base}/api/network`, { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  return guardianNetworkSchema.parse(await res.json()).validators!;
};

describe('GET /api/network: do the validators agree with the app', () => {
  it('agrees at a height both have read, and says why the other two are unreachable', async () => {
    const tip = (await h.chain.tip()).height;
    // Behind by one block: compared at the validator's own tip.
    await validator.catchUp(() => {}, tip - 1);
    const [behind, hung, dead] = await validators();
    expect(behind).toMatchObject({ url: urls.real, state: 'agrees', height: tip - 1 });
    expect(behind!.digest).toBe(behind!.app_digest);
    expect(behind!.digest).toBe(validator.digestAt(tip - 1));
    expect(hung).toMatchObject({
      url: urls.hung,
      state: 'unreachable',
      height: null,
      problem: 'It did not answer within 0.5 s.',
    });
    expect(dead).toMatchObject({ url: urls.dead, state: 'unreachable', height: null });
    expect(dead!.problem).toMatch(/^It could not be read: /);
    await validator.catchUp(() => {});
    const [caughtUp] = await validators();
    expect(caughtUp).toMatchObject({ state: 'agrees', height: tip });
  }, 60_000);

  it('disagrees, at the height compared, once a row of the app’s database is not the chain’s', async () => {
    const tip = (await h.chain.tip()).height;
    const row = (await getVaultByPubkey(h.store.db, aliceKey))!;
    const alter = (amount: number) =>
      h.store.db
        .updateTable('vault_history')
        .set({ vault_amount: amount })
        .where('transaction_id', '=', row.vault_txid)
        .execute();
    await alter(row.btc_locked + 1);
    try {
      const [real] = await validators();
      expect(real).toMatchObject({ state: 'disagrees', height: tip, problem: null });
      expect(real!.digest).toBe(validator.digestAt(tip));
      expect(real!.app_digest).not.toBe(real!.digest);
    } finally {
      await alter(row.btc_locked);
    }
    expect((await validators())[0]).toMatchObject({ state: 'agrees', height: tip });
  }, 60_000);
});
