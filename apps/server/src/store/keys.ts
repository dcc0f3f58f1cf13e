// The guardian's keys: `guard_pubkey` co-signs vault spends, a second key holds the UNIT treasury
// (docs/protocol.md, Keys). GUARDIAN_KEY gives it; on the devnet without it, the key is made at
// first start in DATA_DIR/guardian.key (0600). Never in a database table.
import fs from 'node:fs';
import path from 'node:path';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import type { Network } from '@unit/protocol';
import type { Database } from './schema';
import { ConfigError } from '../config';
import { getSetting } from './settings';
import { moveSecretOut, readSecretFile, writeNewSecretFile } from './secret-files';

export interface GuardianKeys {
  guardianSecretKey: Uint8Array;
  /** x-only, hex */
  guardPubkey: string;
  treasurySecretKey: Uint8Array;
  /** x-only, hex */
  treasuryPubkey: string;
  /**
   * true when `treasuryPubkey` is the guardian network's group key, whose treasury output is
   * `OP_1 <key>` (cosign/treasury-output.ts); unset for this server's own treasury key.
   */
  treasuryIsGroupKey?: boolean;
}

/** One configured secret yields both keys: the treasury key is derived under its own tag. */
function deriveTreasuryKey(guardianSecretKey: Uint8Array): Uint8Array {
  const tag = new TextEncoder().encode('unit/treasury');
  for (let counter = 0; ; counter++) {
    const candidate = hmac(sha256, guardianSecretKey, new Uint8Array([...tag, counter]));
    if (secp256k1.utils.isValidSecretKey(candidate)) return candidate;
  }
}

/** The devnet's guardian key file, made at first start: `${dataDir}/guardian.key`, 0600. */
export const devnetGuardianKeyFile = (dataDir: string) => path.join(dataDir, 'guardian.key');

const HEX_KEY = /^[0-9a-f]{64}$/;

/** The key in a guardian key file (64 hex characters and a newline), refused when others can read it. */
function readGuardianKeyFile(file: string): string {
  const text = readSecretFile(file, 'The guardian key file').trim().toLowerCase();
  if (!HEX_KEY.test(text))
    throw new ConfigError([`The guardian key file ${file} must hold 64 hex characters (32 bytes)`]);
  return text;
}

/** An older devnet kept its guardian key in the settings table: moved into its file, then deleted. */
async function moveGuardianRowOut(db: Kysely<Database>, file: string): Promise<void> {
  const row = await getSetting(db, 'guardian_key');
  if (row === null) return;
  await moveSecretOut({
    row: 'settings guardian_key',
    what: 'The guardian key file',
    file,
    text: `${row.toLowerCase()}\n`,
    matches: (text) => text.trim().toLowerCase() === row.toLowerCase(),
    remove: async () => {
      await db.deleteFrom('settings').where('key', '=', 'guardian_key').execute();
    },
  });
}

export async function loadGuardianKeys(
  db: Kysely<Database>,
  options: { guardianKey: string | null; network: Network; dataDir: string },
): Promise<GuardianKeys> {
  const file = devnetGuardianKeyFile(options.dataDir);
  await moveGuardianRowOut(db, file);
  let secretHex = options.guardianKey;
  if (secretHex === null) {
    if (options.network !== 'devnet') {
      throw new Error(`GUARDIAN_KEY is required on ${options.network}`);
    }
    if (!fs.existsSync(file))
      writeNewSecretFile(file, `${bytesToHex(schnorr.utils.randomSecretKey())}\n`);
    secretHex = readGuardianKeyFile(file);
  }
  return guardianKeysOf(secretHex);
}

/** Both keys of a guardian secret key (hex): its own, and the treasury key derived from it. */
export function guardianKeysOf(secretHex: string): GuardianKeys {
  const guardianSecretKey = hexToBytes(secretHex);
  if (!secp256k1.utils.isValidSecretKey(guardianSecretKey)) {
    throw new Error('GUARDIAN_KEY is not a valid secp256k1 secret key');
  }
  const treasurySecretKey = deriveTreasuryKey(guardianSecretKey);
  return {
    guardianSecretKey,
    guardPubkey: bytesToHex(schnorr.getPublicKey(guardianSecretKey)),
    treasurySecretKey,
    treasuryPubkey: bytesToHex(schnorr.getPublicKey(treasurySecretKey)),
  };
}
