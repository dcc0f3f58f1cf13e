// `npm start`: configuration from the environment, one server on HOST:PORT, graceful shutdown.
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { buildApp } from './app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
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
    },
    'starting',
  );
  const unit = await buildApp(config, { logger: log });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    unit.close().then(
      () => process.exit(0),
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
