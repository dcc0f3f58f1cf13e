// What a test oracle is built from: a store's oracle keys (the key file in a temp folder of its own)
// and the simulated price source, with no tick and a silent log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { loadOracleKeys } from '../src/oracle/keys';
import { SimulatedPriceSource } from '../src/oracle/price-source';
import type { Database } from '../src/store/schema';

export async function testOracleParts(db: Kysely<Database>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-oracle-'));
  return {
    db,
    source: new SimulatedPriceSource(7),
    keys: await loadOracleKeys(db, { file: path.join(dir, 'oracle.key'), network: 'devnet' }),
    tickMs: 0,
    log: pino({ level: 'silent' }),
  };
}
