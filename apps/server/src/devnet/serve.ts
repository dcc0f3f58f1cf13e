// The devnet playing a network for another instance (`npm run devnet -- serve`): a chain of its own
// in DATA_DIR/network.db, serving only what a real network's services answer (esplora, mempool
// fees, ordinals and runes, ord's JSON API, the explorer, the exchanges' price tickers) plus its
// faucet, mine and price controls. No product: no /api of the app, no guardian, no oracle, no web
// page. An instance with
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
import { registerTickerRoutes } from './tickers';
import { DevnetMarket } from './market';

/** The exchanges' first price when START_PRICE does not say: the app's devnet default. */
const DEFAULT_START_CENTS = 95_000_00;

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
  /** The exchanges' price at the network's first start, in cents (START_PRICE); then it is kept. */
  startPriceCents?: number;
}

export interface ServedNetwork {
  url: string;
  devnet: Devnet;
  close(): Promise<void>;
}

export async function serveNetwork(options: ServeNetworkOptions): Promise<ServedNetwork> {
  ensurePrivateDir(options.dataDir);
  const startCents = options.startPriceCents ?? DEFAULT_START_CENTS;
  if (!Number.isSafeInteger(startCents) || startCents <= 0)
    throw new Error('START_PRICE must be a whole number of US dollars, e.g. 95000.');
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
    const market = new DevnetMarket(store.db);
    await registerTickerRoutes(app, market, startCents);
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
