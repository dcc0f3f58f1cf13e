// `npm run probe`: the real server (PostgreSQL when TEST_DATABASE_URL is set, else a temporary
// SQLite file) on a loopback port, with its default /guardian limits; an attacker floods
// `unit.reserve` from many keys, sockets and loopback addresses while a funded user opens a vault.
// Prints how many tries the open took and exits non-zero unless it was 1. Bounded in time (90 s)
// and in calls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { MAX_RPC_PAYLOAD_BYTES } from '../src/rpc/json-rpc';
import { floodWhileOpening } from './reserve-flood';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-probe-'));
const databaseUrl = process.env.TEST_DATABASE_URL;
const config = loadConfig({
  DATA_DIR: dir,
  PORT: '0',
  BLOCK_INTERVAL: '0',
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
});
const schema = `probe_${randomBytes(6).toString('hex')}`;
const unit = await buildApp(config, {
  logger: pino({ level: 'silent' }),
  webDistDir: path.join(dir, 'no-web-build'),
  ...(databaseUrl ? { databaseSchema: schema } : {}),
});
let failed = true;
try {
  const baseUrl = await unit.app.listen({ port: 0, host: '127.0.0.1' });
  const started = Date.now();
  const report = await floodWhileOpening({
    baseUrl,
    attackerAddresses: 12,
    socketsPerAddress: 8,
    maxCalls: 5_000,
    maxTries: 5,
    deadlineMs: 90_000,
  });
  console.log(`database: ${databaseUrl ? 'PostgreSQL' : 'SQLite'}`);
  console.log(
    `attacker: ${report.attackerCalls} unit.reserve calls from 12 loopback addresses, ` +
      `${report.attackerReservations} reservations held`,
  );
  console.log(`user open: ${report.tries} ${report.tries === 1 ? 'try' : 'tries'} (goal: 1)`);
  console.log(
    `the user's signed vault.open message: ${report.requestBytes} bytes ` +
      `(/guardian maxPayload ${MAX_RPC_PAYLOAD_BYTES})`,
  );
  if (report.failures.length > 0) console.log(`refused with: ${report.failures.join(', ')}`);
  console.log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  failed = report.tries !== 1;
} finally {
  await unit.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (databaseUrl) {
    // The probe's schema goes with it (a left-over one confuses Kysely's migrator elsewhere).
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}
process.exit(failed ? 1 : 0);
