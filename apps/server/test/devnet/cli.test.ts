import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { runCli } from '../../src/devnet/cli';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, openTestDevnet, type Devnet } from './fixtures';

let app: FastifyInstance;
let devnet: Devnet;
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const opened = await openTestDevnet();
  devnet = opened.devnet;
  app = Fastify();
  await registerDevnetRoutes(app, devnet, { network: 'devnet' });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await opened.store.close();
    opened.store.cleanup();
  };
});
afterAll(async () => {
  await close();
});

describe('devnet CLI against a running server', () => {
  it('funds an address in BTC and mines blocks', async () => {
    const funded = JSON.parse(await runCli(['fund', ALICE.address, '0.25'], base)) as {
      txid: string;
    };
    const before = (await devnet.tip()).height;
    const mined = JSON.parse(await runCli(['mine', '2'], base)) as { height: number };
    expect(mined.height).toBe(before + 2);
    expect(await devnet.txStatus(funded.txid)).toMatchObject({
      confirmed: true,
      block_height: before + 1,
    });
    const stats = await devnet.addressStats(ALICE.address);
    expect(stats.chain_stats.funded_txo_sum).toBe(25_000_000);
  });

  it('reports the server refusal with its status', async () => {
    await expect(
      runCli(['fund', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', '1'], base),
    ).rejects.toThrow('400: {"error":"address must be a tb1 address","code":"bad_request"}');
  });
});
