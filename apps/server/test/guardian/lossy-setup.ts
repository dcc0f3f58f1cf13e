// The setup the lost-answer tests share (lost-answer.test.ts, lost-speedup.test.ts): the devnet's
// own esplora routes behind the lossy proxy, and the guardian under test restarted on a chain it
// reaches only over HTTP through that proxy; with the checks both files make of a vault after.
import { expect } from 'vitest';
import Fastify from 'fastify';
import { EsploraChain } from '../../src/chain/esplora';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { vaultLock } from '../../src/cosign/locks';
import { getVaultByPubkey } from '../../src/store';
import { call, startHarness, type TestWallet } from './harness';
import { startProxy, TIMEOUT_MS } from './lossy-proxy';

export type LossySetup = Awaited<ReturnType<typeof startLossyGuardian>>;

export async function startLossyGuardian() {
  const h = await startHarness();
  const network = Fastify();
  await registerDevnetRoutes(network, h.devnet, { network: 'devnet' });
  const proxy = await startProxy(await network.listen({ port: 0, host: '127.0.0.1' }));
  const chain = new EsploraChain({
    esploraUrl: `${proxy.url}/esplora`,
    mempoolUrl: `${proxy.url}/mempool`,
    ordinalsUrl: `${proxy.url}/ordinals`,
    runesUrl: `${proxy.url}/runes/`,
    network: 'devnet',
    timeoutMs: TIMEOUT_MS,
  });
  // The guardian under test reaches the chain only over HTTP, through the proxy.
  const guardian = h.restart(chain);

  /** Whether the vault's lock is held. */
  const lockOf = async (wallet: TestWallet) =>
    (await h.store.db
      .selectFrom('guardian_locks')
      .select('lock_key')
      .where('lock_key', '=', vaultLock(wallet.vaultPubkey))
      .executeTakeFirst()) !== undefined;

  /** The vault takes another deposit at once, with the network answering again. */
  const depositsAgain = async (wallet: TestWallet) => {
    proxy.state.mode = 'pass';
    const before = (await getVaultByPubkey(h.store.db, wallet.vaultPubkey))!;
    const { request } = await wallet.deposit(10_000n);
    await call(guardian, 'vault.deposit', request);
    expect((await getVaultByPubkey(h.store.db, wallet.vaultPubkey))?.btc_locked).toBe(
      before.btc_locked + 10_000,
    );
  };

  const close = async () => {
    await proxy.close();
    await network.close();
    await h.close();
  };
  return { h, proxy, chain, guardian, lockOf, depositsAgain, close };
}
