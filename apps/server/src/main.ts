// `npm start`: configuration from the environment, one server on HOST:PORT, graceful shutdown.
// On the devnet with GUARDIAN_NETWORK unset, it also runs a t-of-n guardian network on this
// machine (network-client/local-network.ts). Its key is made before the app is built, so the
// app finds the published set; the guardians run once the server listens, because they read its
// chain and its price; until t of them are ready (seconds), vault requests are refused as
// "starting" (network-client/starting-gate.ts) and the rest of the app already serves. The start's
// reindex of an empty database (off the devnet) runs again for the vaults it needed them for.
import { ConfigError } from './config';
import { startConfig } from './start-config';
import { createLogger } from './logger';
import { buildApp } from './app';
import {
  createLocalGuardianNetwork,
  startLocalGuardianNetwork,
  type LocalGuardianNetwork,
} from './network-client/local-network';

async function main(): Promise<void> {
  let config;
  try {
    config = startConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  // Only what an operator needs: never keys, tokens or the database URL (which may hold a password).
  log.info(
    {
      network: config.network,
      database: config.databaseUrl ? 'postgres' : 'sqlite',
      dataDir: config.dataDir,
      priceSource: config.priceSource,
      telegram: config.telegramBotToken ? 'on' : 'off',
      guardianNetwork: config.guardianNetwork.mode,
    },
    'starting',
  );
  const local = config.guardianNetwork.mode === 'local';
  if (local) await createLocalGuardianNetwork(config, { log });
  let guardians: LocalGuardianNetwork | null = null;
  let rebuilding = false;
  const starting = 'The guardian network is starting; try again in a few seconds.';
  const rebuildingVaults = 'The app is rebuilding its vaults from the chain; try again shortly.';
  const gate = () =>
    (guardians ? guardians.refusal() : starting) ?? (rebuilding ? rebuildingVaults : null);
  const unit = await buildApp(config, { logger: log, ...(local ? { gate } : {}) });
  let stopping = false;
  const shutdown = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // The app first (requests in flight may still need the guardians), then the guardians.
    unit
      .close()
      .then(() => guardians?.stop())
      .then(
        () => process.exit(code),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const address = await unit.app.listen({ port: config.port, host: config.host });
  log.info({ address }, 'UNIT vault app listening');
  if (!local) return;
  const { port } = unit.app.server.address() as { port: number };
  guardians = startLocalGuardianNetwork(config, { port, log });
  rebuilding = true; // from the guardians' start to the end of the reindex below
  // Without t ready guardians no vault can be co-signed: a clear error and a stop, not a half app.
  const ready = await guardians.ready.then(
    () => true,
    (err: unknown) => {
      if (stopping) return false;
      log.error({ err: (err as Error).message }, 'guardian network did not start');
      shutdown('guardian network', 1);
      return false;
    },
  );
  if (!ready || stopping) return;
  // The start's reindex of an empty database ran before the guardians: the network vaults it could
  // not rebuild then are rebuilt now, before a vault request is taken.
  try {
    const again = await unit.reindexNotRebuilt();
    if (again) log.info({ restored: again.restored.length }, 'reindex after the guardians started');
  } finally {
    rebuilding = false;
  }
}

main().catch((err: unknown) => {
  // A key file that turns out wrong at start (another oracle key than the database's) is still a
  // configuration problem, said as one.
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
