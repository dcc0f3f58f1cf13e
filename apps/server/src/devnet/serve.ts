// The devnet playing a network for another instance (`npm run devnet -- serve`): a chain of its own
// in DATA_DIR/network.db, serving only what a real network's services answer (esplora, mempool
// fees, ordinals and runes, ord's JSON API, the explorer) plus its faucet and mine controls. No
// product: no /api of the app, no guardian, no oracle, no web page. An instance with
// NETWORK=signet pointed at it (README "Operate on signet") runs as it would on signet.
import path from 'node:path';
import Fastify from 'fastify';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Address, OutScript, p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import { openStore } from '../store/open';
import { ensurePrivateDir } from '../store/secret-files';
import { migrateToLatest } from '../store/migrations';
import { devnetMigrations } from './migrations';
import { createDevnet, type Devnet } from './devnet';
import { registerDevnetRoutes } from './http';

export interface ServeNetworkOptions {
  dataDir: string;
  host: string;
  /** 0: any free port */
  port: number;
  /** 0: blocks only on demand (POST /api/devnet/mine) */
  blockIntervalMs: number;
  /**
   * Where the genesis etching premines the network's UNIT (1:1): an operator's treasury address
   * takes it with `npm run operator -- use 1:1`. By default a key nobody holds.
   */
  unitTo?: string;
}

export interface ServedNetwork {
  url: string;
  devnet: Devnet;
  close(): Promise<void>;
}

export async function serveNetwork(options: ServeNetworkOptions): Promise<ServedNetwork> {
  ensurePrivateDir(options.dataDir);
  const store = await openStore({ file: path.join(options.dataDir, 'network.db') });
  try {
    await migrateToLatest(store.db, devnetMigrations);
    // The network's own genesis etches UNIT, premined to the address given (an operator's treasury,
    // as an issuer would send it) or to a key nobody holds.
    const devnet = await createDevnet({
      db: store.db,
      treasuryScript: options.unitTo
        ? OutScript.encode(Address(TEST_NETWORK).decode(options.unitTo))
        : p2tr(pubSchnorr(secp256k1.utils.randomSecretKey())).script,
      blockIntervalMs: options.blockIntervalMs,
      faucetKeyFile: path.join(options.dataDir, 'network-faucet.key'),
    });
    const app = Fastify({ logger: false });
    await registerDevnetRoutes(app, devnet, { network: 'devnet' });
    const url = await app.listen({ port: options.port, host: options.host });
    devnet.start();
    return {
      url,
      devnet,
      close: async () => {
        devnet.stop();
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
