// A devnet instance playing a real network for another instance: its esplora, mempool,
// ordinals, runes and explorer routes are the network's services, and the other instance runs with
// NETWORK=signet, its keys from files, as an operator would run it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOracleKeyFile } from '../../src/oracle/keys';

/**
 * The environment of a signet server whose chain services are the devnet at `devnetUrl`. With
 * `guardianNetwork: 'external'` it coordinates a guardian network and names no price feeds: its
 * price is the guardians' quorum, and the start refuses a PRICE_FEEDS it would never read.
 */
export function signetEnvFor(
  devnetUrl: string,
  options: {
    unitRuneId: string;
    guardianKey: string;
    oracleKeyFile?: string;
    guardianNetwork?: 'external';
  },
): Record<string, string> {
  let oracleKeyFile = options.oracleKeyFile;
  if (!oracleKeyFile) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-oracle-key-'));
    oracleKeyFile = path.join(dir, 'oracle.key');
    createOracleKeyFile(oracleKeyFile);
  }
  return {
    NETWORK: 'signet',
    PUBLIC_ORIGIN: 'https://app.example',
    ESPLORA_URL: `${devnetUrl}/esplora`,
    MEMPOOL_URL: `${devnetUrl}/mempool`,
    ORDINALS_URL: `${devnetUrl}/ordinals`,
    RUNES_URL: `${devnetUrl}/runes`,
    EXPLORER_URL: `${devnetUrl}/explorer`,
    UNIT_RUNE_ID: options.unitRuneId,
    GUARDIAN_KEY: options.guardianKey,
    ORACLE_KEY_FILE: oracleKeyFile,
    ...(options.guardianNetwork
      ? { GUARDIAN_NETWORK: options.guardianNetwork }
      : // Nothing answers here: these tests are about the chain, not the price.
        { PRICE_FEEDS: 'mempool@http://127.0.0.1:9,kraken@http://127.0.0.1:9' }),
  };
}
